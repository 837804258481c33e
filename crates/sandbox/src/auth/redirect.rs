//! Which redirect URIs an Application may use. A loopback entry
//! (`http://127.0.0.1`, `http://localhost`, `http://[::1]`) matches that host on
//! any port (RFC 8252 §7.3) and any path under the entry's path; every other
//! entry matches exactly (after URL normalisation). A URI with a fragment or
//! user info never matches (RFC 6749 §3.1.2). Nothing here touches HTTP.

use url::Url;

const LOOPBACK_HOSTS: [&str; 3] = ["127.0.0.1", "localhost", "[::1]"];

/// True when `redirect_uri` matches one of the Application's `allowed` URLs.
pub fn is_allowed(redirect_uri: &str, allowed: &[String]) -> bool {
    let Ok(redirect) = Url::parse(redirect_uri) else {
        return false;
    };
    if redirect.fragment().is_some()
        || !redirect.username().is_empty()
        || redirect.password().is_some()
        || redirect.cannot_be_a_base()
    {
        return false;
    }
    allowed
        .iter()
        .filter_map(|a| Url::parse(a).ok())
        .any(|entry| {
            if is_loopback(&entry) {
                redirect.scheme() == "http"
                    && redirect.host_str() == entry.host_str()
                    && path_under(entry.path(), redirect.path())
                    && (entry.query().is_none() || entry.query() == redirect.query())
            } else {
                redirect == entry
            }
        })
}

fn is_loopback(url: &Url) -> bool {
    url.scheme() == "http" && url.host_str().is_some_and(|h| LOOPBACK_HOSTS.contains(&h))
}

fn path_under(base: &str, path: &str) -> bool {
    if base == "/" || base == path {
        return true;
    }
    let base = base.trim_end_matches('/');
    path.strip_prefix(base)
        .is_some_and(|rest| rest.starts_with('/'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn demo() -> Vec<String> {
        [
            "http://127.0.0.1",
            "http://localhost",
            "http://[::1]",
            "https://app.example/cb",
        ]
        .map(String::from)
        .to_vec()
    }

    #[test]
    fn loopback_matches_any_port_and_path() {
        for uri in [
            "http://127.0.0.1:53682/callback",
            "http://127.0.0.1/",
            "http://localhost:1/a/b?x=1",
            "http://[::1]:8080/cb",
        ] {
            assert!(is_allowed(uri, &demo()), "{uri}");
        }
    }

    #[test]
    fn other_urls_match_exactly() {
        assert!(is_allowed("https://app.example/cb", &demo()));
        for uri in [
            "https://app.example/cb/x",
            "https://app.example/cb?x=1",
            "https://app.example:444/cb",
            "http://app.example/cb",
            "https://evil.example/cb",
            "https://127.0.0.1:5/cb",
            "http://127.0.0.1.evil.example/cb",
            "http://127.0.0.1:5/cb#frag",
            "http://user@127.0.0.1:5/cb",
            "not a url",
        ] {
            assert!(!is_allowed(uri, &demo()), "{uri}");
        }
    }

    #[test]
    fn a_loopback_entry_with_a_path_allows_only_paths_under_it() {
        let allowed = vec!["http://127.0.0.1/rxdesk".to_owned()];
        assert!(is_allowed("http://127.0.0.1:9/rxdesk", &allowed));
        assert!(is_allowed("http://127.0.0.1:9/rxdesk/callback", &allowed));
        assert!(!is_allowed("http://127.0.0.1:9/rxdeskevil", &allowed));
        assert!(!is_allowed("http://127.0.0.1:9/other", &allowed));
    }
}
