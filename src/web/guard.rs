//! Requests from the wrong place, and the headers that keep the page to itself.
//!
//! - DNS rebinding: a web page elsewhere can point its own host name at this laptop and
//!   read the table through a player's browser. Its requests then carry that name in
//!   `Host`. Every request must name this server by an IP address, `localhost`, or the
//!   host of the address the server announces.
//! - Cross-site requests: a page elsewhere may open `/ws` or POST to the API from a
//!   player's browser (browsers do not apply the same-origin policy to WebSockets).
//!   A browser names the page that asks in `Origin`: on `/ws` and every POST it must be
//!   this server. Clients that send no `Origin` are not browsers, so not a cross-site
//!   page (a browser always sends it on these requests).
//! - Every answer says `nosniff`, and a Content-Security-Policy with no inline script
//!   and no framing; images (the map, the QR codes) get a policy that runs nothing.

use std::net::IpAddr;
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::AppState;
use super::api::ApiError;

/// The page's policy: its own scripts and styles only (inline styles for the colours the
/// page sets on elements), no framing, no plugins.
pub const PAGE_CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/// An image's policy: a script inside a served SVG (the scenario's map) runs nowhere,
/// even when the SVG is opened on its own.
pub const IMAGE_CSP: &str =
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; sandbox; frame-ancestors 'none'";

/// The host part of a `Host` header value or an origin's authority, lower case, without
/// the port and the brackets of an IPv6 address.
fn host_name(authority: &str) -> String {
    let authority = authority.trim().to_ascii_lowercase();
    if let Some(rest) = authority.strip_prefix('[') {
        return rest.split(']').next().unwrap_or_default().to_owned();
    }
    authority
        .rsplit_once(':')
        .map_or(authority.as_str(), |(h, _)| h)
        .to_owned()
}

/// Whether a `Host` names this server: an IP address, localhost, or the announced host.
fn allowed_host(state: &AppState, host: &str) -> bool {
    let name = host_name(host);
    let announced = state
        .url
        .split("://")
        .nth(1)
        .and_then(|rest| rest.split('/').next())
        .map(host_name);
    name.parse::<IpAddr>().is_ok()
        || name == "localhost"
        || name.ends_with(".localhost")
        || announced.as_deref() == Some(name.as_str())
}

fn refuse(message: String) -> Response {
    ApiError::new(StatusCode::FORBIDDEN, message).into_response()
}

/// Check `Host` on every request and `Origin` on `/ws` and every POST; add the security
/// headers to every answer.
pub async fn guard(State(state): State<Arc<AppState>>, request: Request, next: Next) -> Response {
    let headers = request.headers();
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .map(str::to_owned)
        .or_else(|| request.uri().authority().map(|a| a.to_string()));
    if let Some(host) = &host
        && !allowed_host(&state, host)
    {
        return refuse(format!(
            "this server is not {host:?}: open it by its address ({})",
            state.url
        ));
    }
    let acts = request.method() != Method::GET && request.method() != Method::HEAD;
    if (acts || request.uri().path() == "/ws")
        && let Some(origin) = headers.get(header::ORIGIN)
    {
        let origin = origin.to_str().unwrap_or("null");
        let same = origin
            .split_once("://")
            .zip(host.as_deref())
            .is_some_and(|((_, authority), host)| authority.eq_ignore_ascii_case(host));
        if !same {
            return refuse(format!(
                "a page at {origin:?} may not use this table: only the table's own page may"
            ));
        }
    }
    let mut response = next.run(request).await;
    let headers = response.headers_mut();
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    headers
        .entry(header::CONTENT_SECURITY_POLICY)
        .or_insert(HeaderValue::from_static(PAGE_CSP));
    response
}

#[cfg(test)]
mod tests {
    use super::host_name;

    #[test]
    fn host_names_lose_their_port_and_brackets() {
        assert_eq!(host_name("192.168.1.5:8080"), "192.168.1.5");
        assert_eq!(host_name("[::1]:8080"), "::1");
        assert_eq!(host_name("Evil.Example"), "evil.example");
        assert_eq!(host_name("localhost:80"), "localhost");
    }
}
