//! A person at the sign-in pages: from the authorize URL the app opened, they
//! sign in (choosing an organization when asked) or cancel, then their browser
//! lands on the app's loopback listener. The client's and the app's test
//! browsers (each a `UrlOpener` of its crate) walk through here.

use url::Url;

use crate::demo::PASSWORD;
use crate::sign_in_page::{Reply, get};

/// What the person does on the sign-in page.
#[derive(Debug, Clone)]
pub enum Act {
    /// Fill Email (this) and Password (the demo password), press Sign in, then
    /// press this organization's button if "Choose an organization" appears
    /// (panic if it appears without one).
    SignIn {
        email: String,
        organization: Option<String>,
    },
    /// Press Cancel.
    Cancel,
}

/// Where the walk ended: the redirect to the app, and what was seen on the way.
#[derive(Debug, Clone)]
pub struct Walked {
    /// The redirect to the app's loopback listener (not followed yet).
    pub callback: Url,
    /// Whether the sign-in page asked for the password (a browser the network
    /// remembers is sent straight back).
    pub asked_password: bool,
    /// Whether "Choose an organization" was shown on the way.
    pub chose_organization: bool,
}

/// The page the browser landed on at the app's loopback listener.
#[derive(Debug, Clone)]
pub struct Landing {
    pub status: u16,
    pub html: String,
    /// Whether "Choose an organization" was shown on the way.
    pub chose_organization: bool,
    /// Whether the sign-in page asked for the password.
    pub asked_password: bool,
}

impl Landing {
    /// The visible text of the page, whitespace collapsed.
    pub fn text(&self) -> String {
        let doc = scraper::Html::parse_document(&self.html);
        let text = doc.root_element().text().collect::<Vec<_>>().join(" ");
        text.split_whitespace().collect::<Vec<_>>().join(" ")
    }
}

/// Walks the sign-in pages from `authorize_url` in `browser` doing `act`, up to
/// the redirect to the app.
pub async fn walk(browser: &reqwest::Client, authorize_url: &Url, act: &Act) -> Walked {
    let first = get(browser, authorize_url.as_str()).await;
    let asked_password = first.is_page();
    let mut reply = match first {
        // Remembered by the network: no page at all.
        Reply::Redirect(_) => first,
        Reply::Page(page) => {
            assert_eq!(page.heading(), "Sign in", "{}", page.html);
            match act {
                Act::Cancel => page.submit(browser, "Cancel", &[]).await,
                Act::SignIn { email, .. } => page.sign_in(browser, email, PASSWORD).await,
            }
        }
    };
    let mut chose_organization = false;
    if let Reply::Page(page) = &reply
        && page.heading() == "Choose an organization"
    {
        let Act::SignIn {
            organization: Some(organization),
            ..
        } = act
        else {
            panic!("unexpected Choose an organization page");
        };
        chose_organization = true;
        reply = page.submit(browser, organization, &[]).await;
    }
    let Reply::Redirect(callback) = reply else {
        panic!("expected the redirect to the app, got {reply:?}");
    };
    Walked {
        callback,
        asked_password,
        chose_organization,
    }
}

/// [`walk`], then the last hop a browser makes: following the redirect to the
/// app's loopback listener (and any redirect it answers) to the page shown.
pub async fn walk_and_land(browser: &reqwest::Client, authorize_url: &Url, act: &Act) -> Landing {
    let walked = walk(browser, authorize_url, act).await;
    let mut target = walked.callback;
    for _ in 0..10 {
        let response = browser.get(target.clone()).send().await.unwrap();
        if let Some(location) = response.headers().get(reqwest::header::LOCATION) {
            target = target.join(location.to_str().unwrap()).unwrap();
            continue;
        }
        return Landing {
            status: response.status().as_u16(),
            html: response.text().await.unwrap(),
            chose_organization: walked.chose_organization,
            asked_password: walked.asked_password,
        };
    }
    panic!("more than 10 redirects after the sign-in, the last to {target}");
}
