//! Scenario errors that point a person at the exact place to fix.

use std::fmt;
use std::path::{Path, PathBuf};

/// What is wrong with a scenario, and where: file, line (1-based) and field.
#[derive(Debug, Clone, PartialEq)]
pub struct ScenarioError {
    pub file: PathBuf,
    pub line: Option<usize>,
    pub field: Option<String>,
    pub message: String,
}

impl ScenarioError {
    pub fn new(
        file: &Path,
        line: Option<usize>,
        field: Option<String>,
        message: impl Into<String>,
    ) -> Self {
        Self {
            file: file.to_path_buf(),
            line,
            field,
            message: message.into(),
        }
    }

    pub fn io(file: &Path, e: std::io::Error) -> Self {
        Self::new(file, None, None, format!("cannot read: {e}"))
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file.display())?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        if let Some(field) = &self.field {
            write!(f, ": {field}")?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for ScenarioError {}

/// 1-based line of a byte offset.
pub fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())]
        .bytes()
        .filter(|&b| b == b'\n')
        .count()
        + 1
}

/// The dotted TOML field at a byte offset: the nearest table header above it
/// (`[[units]]` counted, so "units[3]") and the key on the offending line.
pub fn toml_field_at(text: &str, offset: usize) -> Option<String> {
    let offset = offset.min(text.len());
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[offset..].find('\n').map_or(text.len(), |i| offset + i);
    let line = &text[line_start..line_end];
    let key = line
        .split_once('=')
        .map(|(k, _)| k.trim().trim_matches('"').to_owned())
        .filter(|k| !k.is_empty() && !k.starts_with('['));
    let mut header: Option<String> = None;
    let mut counts: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for l in text[..line_start].lines() {
        let l = l.trim();
        if let Some(name) = l
            .strip_prefix("[[")
            .and_then(|r| r.split_once("]]"))
            .map(|(n, _)| n.trim())
        {
            let n = counts.entry(name.to_owned()).or_insert(0);
            header = Some(format!("{name}[{n}]"));
            *n += 1;
        } else if let Some(name) = l
            .strip_prefix('[')
            .and_then(|r| r.split_once(']'))
            .map(|(n, _)| n.trim())
        {
            header = Some(name.to_owned());
        }
    }
    match (header, key) {
        (Some(h), Some(k)) => Some(format!("{h}.{k}")),
        (Some(h), None) => Some(h),
        (None, Some(k)) => Some(k),
        (None, None) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_named_with_their_array_index() {
        let text = "name = \"x\"\n[map]\nwidth_in = 3\n[[units]]\nid = \"a\"\n[[units]]\nid = \"b\"\nkind = \"tank\"\n";
        let offset = text.find("\"tank\"").unwrap();
        assert_eq!(line_of(text, offset), 8);
        assert_eq!(
            toml_field_at(text, offset).as_deref(),
            Some("units[1].kind")
        );
        let offset = text.find("width_in").unwrap();
        assert_eq!(toml_field_at(text, offset).as_deref(), Some("map.width_in"));
    }
}
