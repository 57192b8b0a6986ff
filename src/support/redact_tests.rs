use super::*;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};

fn redactor(pairs: &[(&str, &str)]) -> Redactor {
    let vars: BTreeMap<String, String> = pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    Redactor::from_env(&vars)
}

#[test]
fn redacts_secret_values_only() {
    let r = redactor(&[
        ("GITHUB_TOKEN", "ghp_abcdefghijkl"),
        ("MY_PASSWORD", "short"),
        ("HOME", "/home/someone-long"),
        ("db_secret", "s3cr3t-value"),
    ]);
    let text = "token ghp_abcdefghijkl pw short home /home/someone-long db s3cr3t-value";
    assert_eq!(
        r.redact(text),
        "token [REDACTED:GITHUB_TOKEN] pw short home /home/someone-long db [REDACTED:db_secret]"
    );
    assert!(matches!(r.redact("nothing here"), Cow::Borrowed(_)));
    assert!(matches!(Redactor::default().redact("x"), Cow::Borrowed(_)));
}

#[test]
fn base64_forms_are_redacted_in_every_alphabet_and_alignment() {
    // Bytes chosen so the standard and URL-safe alphabets differ (`+`/`/` versus `-`/`_`).
    let secret = "s3cr3t?>>?~~value";
    let r = redactor(&[("API_KEY", secret)]);
    let standard = STANDARD.encode(secret);
    assert!(standard.contains('/') || standard.contains('+'), "{standard}");
    assert_eq!(r.redact(&standard), "[REDACTED:API_KEY]");
    let url = URL_SAFE_NO_PAD.encode(secret);
    assert_eq!(r.redact(&format!("x {url} y")), "x [REDACTED:API_KEY] y");
    for prefix in ["", "a", "ab", "abc", "abcd"] {
        for suffix in ["", "z", "zz", "zzz"] {
            for engine in [&STANDARD, &URL_SAFE_NO_PAD] {
                let blob = engine.encode(format!("{prefix}{secret}{suffix}"));
                let out = r.redact(&blob);
                assert!(
                    out.contains("[REDACTED:API_KEY]"),
                    "{prefix:?}+{suffix:?}: {blob} -> {out}"
                );
            }
        }
    }
}

#[test]
fn json_escaped_form_is_redacted() {
    let r = redactor(&[("TOKEN", "pa\"ss\\word1")]);
    let line = serde_json::json!({ "text": "it is pa\"ss\\word1" }).to_string();
    assert!(!r.redact(&line).contains("word1"), "{}", r.redact(&line));
}

#[test]
fn the_longest_secret_wins_when_one_contains_another() {
    let r = redactor(&[("A_KEY", "abcdefgh"), ("B_KEY", "abcdefgh-longer")]);
    assert_eq!(
        r.redact("abcdefgh-longer abcdefgh"),
        "[REDACTED:B_KEY] [REDACTED:A_KEY]"
    );
}

#[test]
fn cutting_keeps_markers_whole() {
    let r = redactor(&[("GITHUB_TOKEN", "ghp_0123456789abcdef")]);
    let text = format!("{}ghp_0123456789abcdef{}", "a".repeat(10), "b".repeat(10));
    let head = r.redact_and_cut(&text, 14, End::First);
    assert_eq!(head, format!("{}[REDACTED:GITHUB_TOKEN]", "a".repeat(10)));
    let tail = r.redact_and_cut(&text, 14, End::Last);
    assert_eq!(tail, format!("[REDACTED:GITHUB_TOKEN]{}", "b".repeat(10)));
    assert_eq!(r.redact_and_cut("short", 14, End::First), "short");
}

#[test]
fn a_secret_split_across_stream_pieces_is_caught() {
    let r = redactor(&[("GITHUB_TOKEN", "ghp_0123456789abcdef")]);
    let text = "your token is ghp_0123456789abcdef, keep it safe; ghp_ alone is fine";
    for size in 1..8 {
        let mut stream = StreamRedactor::new(r.clone());
        let mut shown = String::new();
        let chars: Vec<char> = text.chars().collect();
        for piece in chars.chunks(size) {
            shown.push_str(&stream.push(&piece.iter().collect::<String>()));
        }
        shown.push_str(&stream.finish());
        assert_eq!(
            shown, "your token is [REDACTED:GITHUB_TOKEN], keep it safe; ghp_ alone is fine",
            "{size}"
        );
    }
    let mut plain = StreamRedactor::new(Redactor::default());
    assert_eq!(plain.push("ghp_"), "ghp_");
}

#[test]
fn held_text_is_released_as_soon_as_it_cannot_be_a_secret() {
    let r = redactor(&[("GITHUB_TOKEN", "ghp_0123456789abcdef")]);
    let mut stream = StreamRedactor::new(r);
    assert_eq!(stream.push("hello gh"), "", "short safe text waits with the held tail");
    assert_eq!(stream.push("x"), "hello ghx");
    let long = "a sentence long enough to be shown at once, then gh";
    assert_eq!(stream.push(long), &long[..long.len() - 2]);
    assert_eq!(stream.finish(), "gh");
}
