//! TLS for every HTTPS client of the process (the model, embeddings, MCP servers, tool checks):
//! rustls with ring as its crypto provider, installed once before any client is built. reqwest is
//! built without a provider of its own (aws-lc, whose C build costs a cold build about a minute),
//! so a client built before this would fail.

/// Install ring as the process's rustls provider; calling it again does nothing.
pub fn install() {
    // An error means a provider is installed already, which is all this wants.
    let _ = rustls::crypto::ring::default_provider().install_default();
}

#[cfg(test)]
mod tests {
    #[test]
    fn an_https_client_builds_once_the_provider_is_installed() {
        super::install();
        super::install();
        assert!(reqwest::Client::builder().build().is_ok());
    }
}
