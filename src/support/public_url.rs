//! A URL as it may be stored or shown: without the user name and password a base URL can carry
//! (`http://user:pw@host/v1`). The client still uses the URL as configured; only what is written to
//! sessions, events and the terminal loses them.

/// `url` without credentials (`http://***@host/v1` keeps the fact that some were given); text
/// that is not a URL is returned with anything before an `@` in its authority masked the same way.
pub(crate) fn without_credentials(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut parsed) if !parsed.username().is_empty() || parsed.password().is_some() => {
            if parsed.set_password(None).is_ok() && parsed.set_username("***").is_ok() {
                parsed.to_string()
            } else {
                mask_authority(url)
            }
        }
        Ok(_) => url.to_string(),
        Err(_) => mask_authority(url),
    }
}

/// Mask what comes before the last `@` of the authority (after `//`, before the next `/`).
fn mask_authority(text: &str) -> String {
    let start = text.find("//").map_or(0, |i| i + 2);
    let end = text[start..].find('/').map_or(text.len(), |i| start + i);
    match text[start..end].rfind('@') {
        Some(at) => format!("{}***{}", &text[..start], &text[start + at..]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_never_survive() {
        assert_eq!(
            without_credentials("http://user:pw@host:8080/v1"),
            "http://***@host:8080/v1"
        );
        assert_eq!(without_credentials("https://tok@host/v1"), "https://***@host/v1");
        assert_eq!(
            without_credentials("https://api.openai.com/v1"),
            "https://api.openai.com/v1"
        );
        assert_eq!(without_credentials("weird://a:b@c d/x"), "weird://***@c d/x");
        assert_eq!(without_credentials("no url at all"), "no url at all");
    }
}
