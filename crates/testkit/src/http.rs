//! The tests' own HTTP clients (the crypto provider installed first). Neither
//! follows redirects: a test reads each `Location` itself.

use crate::crypto::install_crypto;

/// A plain HTTP client.
pub fn http() -> reqwest::Client {
    install_crypto();
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}

/// A "browser": keeps cookies (the network remembers a browser by them), so the
/// final redirect to the app's loopback URI can be read from `Location` or followed.
pub fn browser() -> reqwest::Client {
    install_crypto();
    reqwest::Client::builder()
        .cookie_store(true)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}
