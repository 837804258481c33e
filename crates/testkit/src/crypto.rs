//! The process's rustls crypto provider. reqwest is built without one of its
//! own (the client crate hands it its rustls configuration), so the tests'
//! own HTTP clients need ring installed as the process default first.

/// Installs ring as the process's default crypto provider (once; later calls
/// do nothing).
pub fn install_crypto() {
    // Err only when a provider is already installed, which is what we want.
    let _ = rustls::crypto::ring::default_provider().install_default();
}
