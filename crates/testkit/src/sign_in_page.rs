//! The sandbox's HTML pages (sign-in, choose an organization, sign out) read
//! the way a person reads them: the heading, the visible text, the buttons by
//! their text, the inputs by their label; a form submitted by pressing one of
//! its buttons. What a browser request ended with is a [`Reply`]: a page or a
//! redirect (never followed here: the caller reads `Location`).

use scraper::{Html, Selector};
use url::Url;

/// What a browser request ended with: an HTML page or a redirect.
#[derive(Debug, Clone)]
pub enum Reply {
    Page(Page),
    Redirect(Url),
}

impl Reply {
    pub fn is_page(&self) -> bool {
        matches!(self, Self::Page(_))
    }

    pub fn page(self) -> Page {
        match self {
            Self::Page(page) => page,
            Self::Redirect(url) => panic!("expected a page, got a redirect to {url}"),
        }
    }

    pub fn location(&self) -> Option<Url> {
        match self {
            Self::Page(_) => None,
            Self::Redirect(url) => Some(url.clone()),
        }
    }
}

/// An HTML page the sandbox served.
#[derive(Debug, Clone)]
pub struct Page {
    pub url: Url,
    pub status: u16,
    pub html: String,
}

impl Page {
    /// The visible text of the page, whitespace collapsed.
    pub fn text(&self) -> String {
        let doc = Html::parse_document(&self.html);
        let body = doc.root_element().text().collect::<Vec<_>>().join(" ");
        body.split_whitespace().collect::<Vec<_>>().join(" ")
    }

    /// The text of the first `<h1>`.
    pub fn heading(&self) -> String {
        let doc = Html::parse_document(&self.html);
        let h1 = Selector::parse("h1").unwrap();
        doc.select(&h1)
            .next()
            .map(|h| h.text().collect::<String>().trim().to_owned())
            .unwrap_or_default()
    }

    /// Names of the buttons (their visible text).
    pub fn buttons(&self) -> Vec<String> {
        let doc = Html::parse_document(&self.html);
        let sel = Selector::parse("button").unwrap();
        doc.select(&sel)
            .map(|b| b.text().collect::<String>().trim().to_owned())
            .collect()
    }

    /// The `name` of the input labelled `label` (via `<label for>`).
    pub fn input_labelled(&self, label: &str) -> Option<String> {
        let doc = Html::parse_document(&self.html);
        let labels = Selector::parse("label").unwrap();
        let for_id = doc
            .select(&labels)
            .find(|l| l.text().collect::<String>().trim() == label)?
            .value()
            .attr("for")?
            .to_owned();
        let input = Selector::parse(&format!("input#{for_id}")).ok()?;
        doc.select(&input)
            .next()?
            .value()
            .attr("name")
            .map(str::to_owned)
    }

    /// Submits the form holding the button whose text is `button`, with the
    /// form's hidden inputs, `fields` (by input name) and the button's own
    /// name/value.
    pub async fn submit(
        &self,
        browser: &reqwest::Client,
        button: &str,
        fields: &[(String, String)],
    ) -> Reply {
        let (target, body) = self.form_for(button, fields);
        let response = browser
            .post(target.clone())
            .form(&body)
            .send()
            .await
            .unwrap();
        to_reply(target, response).await
    }

    /// The action URL and the body a browser posts when `button` is pressed
    /// (the parsed page is not `Send`, so it is dropped before any await).
    fn form_for(&self, button: &str, fields: &[(String, String)]) -> (Url, Vec<(String, String)>) {
        let doc = Html::parse_document(&self.html);
        let forms = Selector::parse("form").unwrap();
        let buttons = Selector::parse("button").unwrap();
        let hidden = Selector::parse("input[type=hidden]").unwrap();
        for form in doc.select(&forms) {
            let Some(pressed) = form
                .select(&buttons)
                .find(|b| b.text().collect::<String>().trim() == button)
            else {
                continue;
            };
            let mut body: Vec<(String, String)> = form
                .select(&hidden)
                .filter_map(|i| {
                    Some((
                        i.value().attr("name")?.to_owned(),
                        i.value().attr("value").unwrap_or_default().to_owned(),
                    ))
                })
                .collect();
            body.extend(fields.iter().cloned());
            if let Some(name) = pressed.value().attr("name") {
                body.push((
                    name.to_owned(),
                    pressed.value().attr("value").unwrap_or_default().to_owned(),
                ));
            }
            let action = form.value().attr("action").unwrap_or_default();
            return (self.url.join(action).unwrap(), body);
        }
        panic!(
            "no form with a button {button:?} on the page: {}",
            self.text()
        );
    }

    /// Fills **Email** and **Password** and presses **Sign in**.
    pub async fn sign_in(&self, browser: &reqwest::Client, email: &str, password: &str) -> Reply {
        let email_field = self
            .input_labelled("Email")
            .expect("a field labelled Email");
        let password_field = self
            .input_labelled("Password")
            .expect("a field labelled Password");
        self.submit(
            browser,
            "Sign in",
            &[
                (email_field, email.to_owned()),
                (password_field, password.to_owned()),
            ],
        )
        .await
    }

    /// On **Choose an organization**, presses the button named `name`.
    pub async fn choose_organization(&self, browser: &reqwest::Client, name: &str) -> Reply {
        assert_eq!(
            self.heading(),
            "Choose an organization",
            "page: {}",
            self.text()
        );
        self.submit(browser, name, &[]).await
    }
}

/// `GET url` in `browser`.
pub async fn get(browser: &reqwest::Client, url: &str) -> Reply {
    let target = Url::parse(url).unwrap();
    let response = browser.get(target.clone()).send().await.unwrap();
    to_reply(target, response).await
}

async fn to_reply(url: Url, response: reqwest::Response) -> Reply {
    let status = response.status();
    if status.is_redirection() {
        let location = response
            .headers()
            .get(reqwest::header::LOCATION)
            .expect("a redirect has a Location")
            .to_str()
            .unwrap();
        return Reply::Redirect(url.join(location).unwrap());
    }
    Reply::Page(Page {
        url,
        status: status.as_u16(),
        html: response.text().await.unwrap(),
    })
}

/// The query parameters of `url` (last one wins).
pub fn query_map(url: &Url) -> std::collections::HashMap<String, String> {
    url.query_pairs()
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect()
}
