//! The HTTP client builder every model-endpoint client starts from (chat, embeddings, model
//! lists), so that what a client sets up depends on the endpoint it talks to.
//!
//! Setting up TLS means loading every system CA certificate: on a typical Linux system that is
//! over a hundred files under `/etc/ssl/certs` opened and parsed, a few milliseconds at every
//! start. A plain `http://` endpoint (a local Ollama, llama.cpp or vLLM, a test mock) never
//! speaks TLS, so its client gets an empty certificate store instead: nothing is read, and a
//! redirect to `https://` fails verification rather than being trusted.

/// A client builder for `base_url`.
pub(crate) fn builder(base_url: &str) -> reqwest::ClientBuilder {
    crate::support::tls::install();
    let builder = reqwest::Client::builder();
    if is_plain_http(base_url) {
        builder.tls_certs_only(Vec::new())
    } else {
        builder
    }
}

/// Whether `url` is a plain-HTTP URL (any letter case, surrounding spaces ignored).
pub(crate) fn is_plain_http(url: &str) -> bool {
    url.trim()
        .get(..7)
        .is_some_and(|scheme| scheme.eq_ignore_ascii_case("http://"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_plain_http_skips_certificates() {
        assert!(is_plain_http("http://127.0.0.1:11434/v1"));
        assert!(is_plain_http(" HTTP://localhost/v1"));
        assert!(!is_plain_http("https://api.openai.com/v1"));
        assert!(!is_plain_http("http:/x"));
        assert!(!is_plain_http(""));
        assert!(builder("http://127.0.0.1:1/v1").build().is_ok());
    }
}
