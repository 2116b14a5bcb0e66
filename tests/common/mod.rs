//! What more than one integration test shares.

use proptest::test_runner::Config;

/// A property test's configuration with `cases` cases, unless the PROPTEST_CASES
/// variable asks for another number (for a longer hunt). For tests whose case costs
/// more than the 256 cases proptest runs by default would fit in CI.
pub fn proptest_cases(cases: u32) -> Config {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(cases);
    Config {
        cases,
        ..Config::default()
    }
}
