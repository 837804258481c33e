//! The templates this workstation drafted from, per environment and
//! organization, each with the names the network answered for it — the
//! template's own name when the network gave one, and the drug it produced —
//! so the prescription screen can offer them by name: the network has no list
//! of templates. Catalog data only: a template and a drug belong to the
//! organization's catalog and are the same for every patient. No patient id,
//! no instructions, nothing typed for a patient is kept here; the records
//! drafted from a template are indexed by id like any other. This file is the
//! table's SQL, on the connection `index.rs` holds; `Index` calls it.

use rusqlite::{Connection, params};

/// Created with the index (a table of its own: the records' table is untouched).
pub(super) const SCHEMA: &str = "CREATE TABLE IF NOT EXISTS templates (
    environment TEXT NOT NULL,
    organization TEXT NOT NULL,
    id TEXT NOT NULL,
    name TEXT,
    drug_name TEXT NOT NULL,
    used INTEGER NOT NULL,
    PRIMARY KEY (environment, organization, id)
)";

/// How many of the most recently used templates a search looks through.
const SEARCHED: i64 = 500;

/// A template drafted from here, named as the network answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UsedTemplate {
    pub id: String,
    /// The template's name, when the network said it.
    pub name: Option<String>,
    /// The display name of the drug the template produced.
    pub drug_name: String,
}

impl UsedTemplate {
    /// Whether `query` (already lower-cased) is part of its names or its id.
    fn fits(&self, query: &str) -> bool {
        [Some(&self.id), self.name.as_ref(), Some(&self.drug_name)]
            .into_iter()
            .flatten()
            .any(|text| text.to_lowercase().contains(query))
    }
}

/// Records that `template` was drafted from now in `(environment,
/// organization)`, with its names as answered now.
pub(super) fn remember(
    conn: &Connection,
    (environment, organization): (&str, &str),
    template: &UsedTemplate,
) -> rusqlite::Result<()> {
    let next: i64 = conn.query_row(
        "SELECT COALESCE(MAX(used), 0) + 1 FROM templates",
        [],
        |r| r.get(0),
    )?;
    conn.execute(
        "INSERT INTO templates (environment, organization, id, name, drug_name, used)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)
         ON CONFLICT (environment, organization, id)
         DO UPDATE SET used = excluded.used,
             name = COALESCE(excluded.name, templates.name),
             drug_name = excluded.drug_name",
        params![
            environment,
            organization,
            template.id,
            template.name,
            template.drug_name,
            next
        ],
    )?;
    Ok(())
}

/// The templates of `(environment, organization)` whose name, drug or id
/// holds `query` (any case), most recently used first; every one (up to
/// `limit`) for an empty query.
pub(super) fn find(
    conn: &Connection,
    (environment, organization): (&str, &str),
    query: &str,
    limit: usize,
) -> rusqlite::Result<Vec<UsedTemplate>> {
    let query = query.trim().to_lowercase();
    let mut statement = conn.prepare_cached(
        "SELECT id, name, drug_name FROM templates
         WHERE environment = ?1 AND organization = ?2
         ORDER BY used DESC LIMIT ?3",
    )?;
    let rows = statement.query_map(params![environment, organization, SEARCHED], |r| {
        Ok(UsedTemplate {
            id: r.get(0)?,
            name: r.get(1)?,
            drug_name: r.get(2)?,
        })
    })?;
    let mut found = Vec::new();
    for row in rows {
        let template = row?;
        if template.fits(&query) {
            found.push(template);
            if found.len() == limit {
                break;
            }
        }
    }
    Ok(found)
}

/// Drops a template the network no longer knows in `(environment, organization)`.
pub(super) fn forget(
    conn: &Connection,
    (environment, organization): (&str, &str),
    id: &str,
) -> rusqlite::Result<()> {
    conn.execute(
        "DELETE FROM templates WHERE environment = ?1 AND organization = ?2 AND id = ?3",
        params![environment, organization, id],
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn table() -> Connection {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch(SCHEMA).unwrap();
        conn
    }

    const MAPLE: (&str, &str) = ("sandbox", "org_maple");

    fn lisinopril() -> UsedTemplate {
        UsedTemplate {
            id: "tmpl_lisinopril".into(),
            name: Some("Lisinopril 10 mg daily".into()),
            drug_name: "Lisinopril 10 mg tablet".into(),
        }
    }

    #[test]
    fn a_remembered_template_is_found_by_any_part_of_its_names_in_any_case() {
        let conn = table();
        remember(&conn, MAPLE, &lisinopril()).unwrap();

        for query in ["LISIN", "10 mg daily", "tablet", "tmpl_lis", ""] {
            assert_eq!(
                find(&conn, MAPLE, query, 10).unwrap(),
                [lisinopril()],
                "{query:?}"
            );
        }
        assert!(find(&conn, MAPLE, "metformin", 10).unwrap().is_empty());
    }

    #[test]
    fn another_organization_is_offered_none_of_the_templates() {
        let conn = table();
        remember(&conn, MAPLE, &lisinopril()).unwrap();

        assert!(
            find(&conn, ("sandbox", "org_birch"), "", 10)
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn the_most_recently_used_come_first_and_a_forgotten_one_is_gone() {
        let conn = table();
        let other = UsedTemplate {
            id: "tmpl_metformin".into(),
            name: None,
            drug_name: "Metformin 500 mg tablet".into(),
        };
        remember(&conn, MAPLE, &lisinopril()).unwrap();
        remember(&conn, MAPLE, &other).unwrap();
        remember(&conn, MAPLE, &lisinopril()).unwrap();

        let ids = |conn: &Connection| -> Vec<String> {
            find(conn, MAPLE, "", 10)
                .unwrap()
                .into_iter()
                .map(|t| t.id)
                .collect()
        };
        assert_eq!(ids(&conn), ["tmpl_lisinopril", "tmpl_metformin"]);
        forget(&conn, MAPLE, "tmpl_lisinopril").unwrap();
        assert_eq!(ids(&conn), ["tmpl_metformin"]);
    }
}
