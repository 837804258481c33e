//! Every name ARCHITECTURE.md writes in backticks exists in the repository, so the
//! map cannot drift from the code unnoticed (it once named `painting::apply` where
//! the code had `web_process::apply`).
//!
//! It lives in xtask because xtask is the workspace's smallest crate: this test
//! needs nothing but `std`, and its binary links none of the sandbox, client or app.
//!
//! What is checked: every inline code span outside fenced blocks (the diagram),
//! its line breaks read as spaces. Each span is one of, in this order:
//!
//! 1. **A command** — optional `NAME=value` assignments, then `cargo …` or `npm …`.
//!    Each assigned name is an environment variable read by the code (rule 3).
//!    `cargo xtask SUB`: `SUB` is a quoted subcommand in `xtask/src/main.rs`;
//!    any other cargo subcommand is one of [`CARGO_SUBCOMMANDS`], its `-p` a
//!    workspace package, its `--test`/`--example`/`--bin` a target of one (a file
//!    `tests/NAME.rs`, `examples/NAME.rs`, `src/bin/NAME.rs`, or a `name = "NAME"`
//!    in a manifest). `npm`: `--prefix DIR` exists, `run SCRIPT` is a script of
//!    `ui/package.json`.
//! 2. **A list** — `prefix::{A, B}` is checked as `prefix::A` and `prefix::B`.
//! 3. **An assignment or constant** — `NAME=value` (an environment variable, a
//!    query parameter): `NAME` appears quoted in a source file. An all-capitals
//!    `NAME` alone: quoted in a source file, or defined (`const`, `static`).
//! 4. **A phrase** — any other span holding a space (a log line, a page's words):
//!    appears verbatim in a source file.
//! 5. **A route or system path** — starts with `/`: appears verbatim in a source
//!    file (the part before a `*` or `<placeholder>`).
//! 6. **A file or directory** — holds a `/` or ends in a known extension: some file
//!    or directory of the repository ends with it, whole segment by whole segment,
//!    so `network/call_shape.rs` finds `crates/sandbox/src/network/call_shape.rs`;
//!    `<placeholder>` and `*` stand for any text within one segment. A file the
//!    code reads or writes at run time (`environments.toml`) passes when it appears
//!    quoted in a source file. A path under a git-ignored output directory
//!    (`target/`, `ui/dist/`) is written by code: each of its segments appears
//!    quoted in a source file.
//! 7. **A Rust path** `a::b::Name`, every segment an identifier (after `crate::`; a workspace crate's name, like
//!    `rxdesk_e2e::`, narrows to that crate's directory): `Name` is defined (rule 8)
//!    in a file whose path has a segment named after each lowercase module of the
//!    path (`a.rs` or `a/`), and that names each type of the path (`Type::method`:
//!    a file that names `Type` defines `method`).
//! 8. **An identifier** (a trailing `!`, `()` or `(args)` dropped): defined in a
//!    source file — after `fn`, `struct`, `enum`, `trait`, `type`, `mod`, `const`,
//!    `static`, `union`, `macro_rules!`, `as` (a re-export), in TypeScript/Svelte
//!    also `function`, `class`, `interface`, `let`, `var`, in GraphQL `input`,
//!    `scalar`, in SQL `TABLE`; or first on its line followed by `:`, `,`, `{`,
//!    `=`, `?`, the line's end (a field, a variant, a key, a TOML/GraphQL entry) or,
//!    capitalised or in TypeScript, `(` (a tuple variant, a method); or a
//!    `NAME.svelte` component; or a trait the code implements
//!    (`impl NAME for`) or derives (`derive(NAME)`), external ones like `Debug`
//!    included. Failing that, it appears quoted in a source file (a JSON key, a
//!    header, a claim like `sid`).
//! 9. **Anything else** (a scheme like `rxdesk://`, a mode like `0600`): appears
//!    verbatim in a source file.
//!
//! Source files are the repository's text files but Markdown (a document never
//! vouches for another), lock files and this file (its tests quote missing
//! names); git-ignored directories are skipped.
//! There is no allow-list: an external crate passes as a key of a manifest.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::{HashMap, HashSet};
use std::path::Path;

/// The cargo subcommands a command in the document may use (built in, or the
/// profilers the brief names).
const CARGO_SUBCOMMANDS: &[&str] = &[
    "bench",
    "bloat",
    "build",
    "check",
    "clippy",
    "doc",
    "flamegraph",
    "fmt",
    "install",
    "metadata",
    "run",
    "test",
    "tree",
];

/// Directories never read: build outputs and dependencies (git-ignored).
const SKIPPED_DIRS: &[&str] = &[".git", "target", "node_modules", "dist"];

/// The checker itself, relative to the repository's root.
const THIS_FILE: &str = "xtask/tests/architecture_names.rs";

/// Output directories (git-ignored): their paths are written by code.
const OUTPUT_PREFIXES: &[&str] = &["target/", "ui/dist"];

/// Extensions that make a span without a `/` a file name.
const FILE_EXTENSIONS: &[&str] = &[
    "rs", "ts", "svelte", "toml", "json", "yml", "yaml", "md", "sql", "graphql", "c", "nsi", "csv",
    "html", "css", "sh",
];

/// The repository as the checker reads it.
#[derive(Debug)]
struct Repo {
    /// Every file and directory, relative to the root, `/`-separated.
    paths: Vec<String>,
    /// Source files: relative path and text.
    sources: Vec<(String, String)>,
    /// Each defined name, with the indices (into `sources`) of the files defining it.
    defined: HashMap<String, HashSet<usize>>,
    /// Every string between double quotes (and, in TypeScript and Svelte, single
    /// quotes or backticks) in a source file.
    quoted: HashSet<String>,
    /// Workspace packages: name and directory.
    packages: Vec<(String, String)>,
}

impl Repo {
    fn read(root: &Path) -> Repo {
        let mut paths = Vec::new();
        let mut sources = Vec::new();
        walk(root, root, &mut paths, &mut sources);
        let mut defined: HashMap<String, HashSet<usize>> = HashMap::new();
        let mut quoted = HashSet::new();
        for (index, (path, text)) in sources.iter().enumerate() {
            let script = path.ends_with(".ts") || path.ends_with(".svelte");
            for name in definitions(text, script) {
                defined.entry(name).or_default().insert(index);
            }
            if let Some(stem) = path.strip_suffix(".svelte") {
                let stem = stem.rsplit('/').next().unwrap_or(stem);
                defined.entry(stem.to_owned()).or_default().insert(index);
            }
            quoted_strings(text, script, &mut quoted);
        }
        let packages = workspace_packages(&sources);
        Repo {
            paths,
            sources,
            defined,
            quoted,
            packages,
        }
    }

    /// A repository built from the given files alone (the checker's own tests).
    #[cfg(test)]
    fn from_files(files: &[(&str, &str)]) -> Repo {
        let dir = tempfile::tempdir().unwrap();
        for (path, text) in files {
            let full = dir.path().join(path);
            std::fs::create_dir_all(full.parent().unwrap()).unwrap();
            std::fs::write(full, text).unwrap();
        }
        Repo::read(dir.path())
    }

    fn source(&self, path: &str) -> Option<&str> {
        self.sources
            .iter()
            .find(|(p, _)| p == path)
            .map(|(_, t)| t.as_str())
    }

    fn verbatim(&self, text: &str) -> bool {
        self.sources.iter().any(|(_, t)| t.contains(text))
    }

    fn quoted(&self, text: &str) -> bool {
        self.quoted.contains(text)
    }

    fn defined_in(&self, name: &str) -> Option<&HashSet<usize>> {
        self.defined.get(name)
    }

    fn path_exists(&self, wanted: &str) -> bool {
        let wanted: Vec<&str> = wanted.trim_end_matches('/').split('/').collect();
        self.paths.iter().any(|path| {
            let segments: Vec<&str> = path.split('/').collect();
            segments.len() >= wanted.len()
                && segments[segments.len() - wanted.len()..]
                    .iter()
                    .zip(&wanted)
                    .all(|(have, want)| segment_matches(want, have))
        })
    }

    /// The directory of the workspace package named `name` (`-` or `_` alike).
    fn package_dir(&self, name: &str) -> Option<&str> {
        let name = name.replace('_', "-");
        self.packages
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, d)| d.as_str())
    }

    fn is_target(&self, name: &str) -> bool {
        let files = [
            format!("tests/{name}.rs"),
            format!("examples/{name}.rs"),
            format!("src/bin/{name}.rs"),
        ];
        files.iter().any(|f| self.path_exists(f))
            || self.sources.iter().any(|(p, t)| {
                p.ends_with("Cargo.toml") && t.contains(&format!("name = \"{name}\""))
            })
    }
}

/// `want` is one segment of a path in the document; `<x>` and `*` stand for any
/// text (`<record>.rs`, `network_*.rs`, `renderD*`).
fn segment_matches(want: &str, have: &str) -> bool {
    let mut glob = String::new();
    let mut placeholder = false;
    for c in want.chars() {
        match c {
            '<' => placeholder = true,
            '>' if placeholder => {
                placeholder = false;
                glob.push('*');
            }
            _ if placeholder => {}
            _ => glob.push(c),
        }
    }
    match glob.split_once('*') {
        Some((before, after)) => {
            have.len() >= before.len() + after.len()
                && have.starts_with(before)
                && have.ends_with(after)
        }
        None => glob == have,
    }
}

fn walk(root: &Path, dir: &Path, paths: &mut Vec<String>, sources: &mut Vec<(String, String)>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let relative = path
            .strip_prefix(root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        if path.is_dir() {
            if SKIPPED_DIRS.contains(&name.as_str()) {
                continue;
            }
            paths.push(relative);
            walk(root, &path, paths, sources);
            continue;
        }
        paths.push(relative.clone());
        // This file quotes missing names in its own tests: it vouches for none.
        if relative == THIS_FILE {
            continue;
        }
        let is_doc = name.ends_with(".md");
        let is_lock = name == "Cargo.lock" || name == "package-lock.json";
        if is_doc || is_lock {
            continue;
        }
        if let Ok(text) = std::fs::read_to_string(&path) {
            sources.push((relative, text));
        }
    }
}

/// The workspace's packages, from the root manifest's `members` and each member's
/// `name`.
fn workspace_packages(sources: &[(String, String)]) -> Vec<(String, String)> {
    let find = |path: &str| sources.iter().find(|(p, _)| p == path).map(|(_, t)| t);
    let Some(root) = find("Cargo.toml") else {
        return Vec::new();
    };
    let Some(members) = root.lines().find(|l| l.starts_with("members")) else {
        return Vec::new();
    };
    members
        .split('"')
        .skip(1)
        .step_by(2)
        .filter_map(|dir| {
            let manifest = find(&format!("{dir}/Cargo.toml"))?;
            let name = manifest
                .lines()
                .find_map(|l| l.strip_prefix("name = \""))?
                .trim_end_matches('"');
            Some((name.to_owned(), dir.to_owned()))
        })
        .collect()
}

fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

fn is_identifier(s: &str) -> bool {
    !s.is_empty() && s.chars().all(is_word_char) && !s.starts_with(|c: char| c.is_ascii_digit())
}

/// The words of a line, each with the byte offset just after it.
fn words(line: &str) -> Vec<(&str, usize)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in line.char_indices() {
        match (is_word_char(c), start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                out.push((&line[s..i], i));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push((&line[s..], line.len()));
    }
    out
}

/// Words after which a name is defined (Rust, GraphQL, SQL; `as` for a
/// re-export under another name).
const DEFINING_WORDS: &[&str] = &[
    "fn",
    "struct",
    "enum",
    "trait",
    "type",
    "mod",
    "const",
    "static",
    "union",
    "macro_rules",
    "as",
    "input",
    "scalar",
    "interface",
    "TABLE",
];
/// The same, in TypeScript and Svelte only (in Rust a `let` is no name worth
/// mapping).
const SCRIPT_DEFINING_WORDS: &[&str] = &["function", "class", "let", "var"];
/// Words that may stand before a field or a method on its line.
const LINE_PREFIXES: &[&str] = &[
    "pub(crate) ",
    "pub(super) ",
    "pub ",
    "export ",
    "readonly ",
    "async ",
];

/// The names a source file defines (rule 8).
fn definitions(text: &str, script: bool) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines() {
        let words = words(line);
        for pair in words.windows(2) {
            let (before, before_end) = pair[0];
            let (name, _) = pair[1];
            let between = &line[before_end..pair[1].1 - name.len()];
            let defining = DEFINING_WORDS.contains(&before)
                || (script && SCRIPT_DEFINING_WORDS.contains(&before));
            if defining
                && between
                    .trim_matches(|c: char| c == '!' || c.is_whitespace())
                    .is_empty()
            {
                out.push(name.to_owned());
            }
        }
        // A trait the code implements or derives (an external name like `Debug`).
        if let Some((_, derived)) = line.split_once("derive(") {
            let inside = derived.split(')').next().unwrap_or("");
            out.extend(inside.split(',').filter_map(|d| {
                let d = d.trim().rsplit("::").next()?;
                is_identifier(d).then(|| d.to_owned())
            }));
        }
        if let Some((head, _)) = line
            .trim_start()
            .strip_prefix("impl")
            .and_then(|l| l.split_once(" for "))
        {
            let head = head.trim_start();
            let head = match head.strip_prefix('<') {
                Some(generics) => generics.split_once("> ").map_or("", |(_, h)| h),
                None => head,
            };
            let name = head.split('<').next().unwrap_or("").trim();
            let name = name.rsplit("::").next().unwrap_or(name);
            if is_identifier(name) {
                out.push(name.to_owned());
            }
        }
        // First on its line: a field, a variant, a key, a method.
        let mut rest = line.trim_start();
        while let Some(after) = LINE_PREFIXES.iter().find_map(|p| rest.strip_prefix(p)) {
            rest = after.trim_start();
        }
        let rest = rest.trim_start_matches(['|', '(']).trim_start();
        let end = rest.find(|c: char| !is_word_char(c)).unwrap_or(rest.len());
        let (name, after) = rest.split_at(end);
        let after = after.trim_start();
        let capital = name.starts_with(|c: char| c.is_ascii_uppercase());
        let follows = after.is_empty()
            || (after.starts_with(':') && !after.starts_with("::"))
            || after.starts_with(',')
            || after.starts_with('{')
            || after.starts_with('?')
            || (after.starts_with('=') && !after.starts_with("==") && !after.starts_with("=>"))
            || (after.starts_with('(') && (capital || script));
        if is_identifier(name) && follows {
            out.push(name.to_owned());
        }
    }
    out
}

/// Every string between quotes on one line (no escapes: names hold none).
fn quoted_strings(text: &str, script: bool, out: &mut HashSet<String>) {
    let quotes: &[char] = if script { &['"', '\'', '`'] } else { &['"'] };
    for line in text.lines() {
        for &quote in quotes {
            let mut parts = line.split(quote);
            parts.next();
            while let Some(inside) = parts.next() {
                out.insert(inside.to_owned());
                if parts.next().is_none() {
                    break;
                }
            }
        }
    }
}

/// The inline code spans of a Markdown text, outside fenced blocks, with line
/// breaks and indentation read as one space.
fn code_spans(doc: &str) -> Vec<String> {
    let mut prose = String::new();
    let mut fenced = false;
    for line in doc.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if !fenced {
            prose.push_str(line.trim());
            prose.push(' ');
        }
    }
    prose
        .split('`')
        .skip(1)
        .step_by(2)
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty())
        .collect()
}

/// The spans of `doc` that name nothing in `repo`.
fn unknown_names(doc: &str, repo: &Repo) -> Vec<String> {
    let mut seen = HashSet::new();
    code_spans(doc)
        .into_iter()
        .filter(|span| !exists(span, repo) && seen.insert(span.clone()))
        .collect()
}

fn exists(span: &str, repo: &Repo) -> bool {
    let words: Vec<&str> = span.split_whitespace().collect();
    // 1. A command.
    let assignments = words.iter().take_while(|w| assignment(w).is_some()).count();
    if let Some(&program) = words.get(assignments)
        && (program == "cargo" || program == "npm")
    {
        let names_read = words[..assignments]
            .iter()
            .all(|w| repo.quoted(assignment(w).unwrap_or(w)));
        let rest = &words[assignments + 1..];
        return names_read
            && if program == "cargo" {
                cargo_command(rest, repo)
            } else {
                npm_command(rest, repo)
            };
    }
    // 2. A list.
    if let Some((prefix, list)) = span.split_once("::{") {
        return list
            .trim_end_matches('}')
            .split(',')
            .all(|item| exists(&format!("{prefix}::{}", item.trim()), repo));
    }
    // 3. An assignment or a constant.
    if words.len() == 1
        && let Some(name) = assignment(span)
    {
        return repo.quoted(name);
    }
    if !span.is_empty()
        && span
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
        && span.len() > 1
    {
        return repo.quoted(span) || repo.defined_in(span).is_some();
    }
    // 4. A phrase.
    if words.len() > 1 {
        return repo.verbatim(span);
    }
    // 5. A route or a system path.
    if span.starts_with('/') {
        let fixed = span.split(['*', '<']).next().unwrap_or(span);
        return repo.verbatim(fixed);
    }
    // 6. A file or a directory.
    let extension = span.rsplit_once('.').map(|(_, e)| e);
    if !span.contains("::")
        && (span.contains('/') && !span.contains("://")
            || extension.is_some_and(|e| FILE_EXTENSIONS.contains(&e)))
    {
        if OUTPUT_PREFIXES.iter().any(|p| span.starts_with(p)) {
            return span
                .split('/')
                .filter(|s| !s.is_empty() && !s.starts_with('<'))
                .all(|s| repo.quoted(s));
        }
        return repo.path_exists(span) || repo.quoted(span);
    }
    // 7. A Rust path.
    let bare = strip_call(span);
    if bare.contains("::") && bare.split("::").all(is_identifier) {
        return rust_path(bare, repo);
    }
    // 8. An identifier.
    if is_identifier(bare) {
        return repo.defined_in(bare).is_some() || repo.quoted(bare);
    }
    // 9. Anything else.
    repo.verbatim(span)
}

/// `NAME=value`: the name, when it is an identifier.
fn assignment(word: &str) -> Option<&str> {
    let (name, _) = word.split_once('=')?;
    is_identifier(name).then_some(name)
}

/// `name!`, `name()`, `name(args)`: `name`.
fn strip_call(span: &str) -> &str {
    let span = match span.find('(') {
        Some(open) if span.ends_with(')') => &span[..open],
        _ => span,
    };
    span.trim_end_matches('!')
}

fn cargo_command(args: &[&str], repo: &Repo) -> bool {
    let Some((&sub, rest)) = args.split_first() else {
        return false;
    };
    if sub == "xtask" {
        return match rest.first() {
            Some(task) if !task.starts_with('-') => repo
                .source("xtask/src/main.rs")
                .is_some_and(|main| main.contains(&format!("Some(\"{task}\")"))),
            _ => true,
        };
    }
    if !CARGO_SUBCOMMANDS.contains(&sub) {
        return false;
    }
    rest.windows(2).all(|pair| match pair[0] {
        "-p" | "--package" => repo.package_dir(pair[1]).is_some(),
        "--test" | "--example" | "--bin" => repo.is_target(pair[1]),
        _ => true,
    })
}

fn npm_command(args: &[&str], repo: &Repo) -> bool {
    let mut args = args.iter();
    let mut ui = "ui";
    while let Some(&arg) = args.next() {
        match arg {
            "--prefix" => match args.next() {
                Some(&dir) if repo.path_exists(dir) => ui = dir,
                _ => return false,
            },
            "run" => {
                let Some(script) = args.next() else {
                    return false;
                };
                return repo
                    .source(&format!("{ui}/package.json"))
                    .is_some_and(|p| p.contains(&format!("\"{script}\":")));
            }
            "ci" | "test" | "install" => return true,
            _ if arg.starts_with('-') => {}
            _ => return false,
        }
    }
    false
}

/// Rule 7: `a::b::Name`.
fn rust_path(path: &str, repo: &Repo) -> bool {
    let mut segments: Vec<&str> = path.split("::").collect();
    while matches!(segments.first(), Some(&("crate" | "self" | "super"))) {
        segments.remove(0);
    }
    let mut dir = None;
    if segments.len() > 1
        && let Some(d) = repo.package_dir(segments[0])
    {
        dir = Some(d.to_owned());
        segments.remove(0);
    }
    let Some((&name, modules)) = segments.split_last() else {
        return false;
    };
    let Some(files) = repo.defined_in(name) else {
        return false;
    };
    let types_exist = modules
        .iter()
        .filter(|m| m.starts_with(|c: char| c.is_ascii_uppercase()))
        .all(|t| repo.defined_in(t).is_some());
    types_exist
        && files.iter().any(|&index| {
            let (file, text) = &repo.sources[index];
            let in_crate = dir
                .as_deref()
                .is_none_or(|d| file.starts_with(&format!("{d}/")));
            let file_segments: Vec<&str> = file
                .split('/')
                .map(|s| s.split('.').next().unwrap_or(s))
                .collect();
            in_crate
                && modules.iter().all(|m| {
                    if m.starts_with(|c: char| c.is_ascii_uppercase()) {
                        words(text).iter().any(|(w, _)| w == m)
                    } else {
                        file_segments.contains(m)
                    }
                })
        })
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap()
}

#[test]
fn every_name_in_architecture_md_exists() {
    let repo = Repo::read(root());
    let doc = std::fs::read_to_string(root().join("ARCHITECTURE.md")).unwrap();
    let unknown = unknown_names(&doc, &repo);
    assert!(
        unknown.is_empty(),
        "ARCHITECTURE.md names {} thing(s) the repository does not have \
         (rules: xtask/tests/architecture_names.rs):\n  {}",
        unknown.len(),
        unknown.join("\n  ")
    );
}

#[test]
fn the_drift_issue_46_found_is_reported_against_this_repository() {
    let repo = Repo::read(root());
    let doc = "The one exception, `painting::apply`, is really `web_process::apply`.";

    let unknown = unknown_names(doc, &repo);

    assert_eq!(unknown, ["painting::apply"]);
}

#[cfg(test)]
mod checker {
    use super::*;

    fn small_repo() -> Repo {
        Repo::from_files(&[
            (
                "Cargo.toml",
                "[workspace]\nmembers = [\"app\", \"xtask\"]\n",
            ),
            (
                "app/Cargo.toml",
                "[package]\nname = \"demo-app\"\n\n[dependencies]\ntokio = \"1\"\n",
            ),
            (
                "app/src/web_process.rs",
                "pub unsafe fn apply() {}\npub enum Problem {\n    NotRunning,\n    Locked(u8),\n}\n",
            ),
            (
                "app/src/painting.rs",
                "pub fn choose() {}\nconst LIMIT: u8 = 1;\nimpl<S> FromRef<S> for Painting {}\n",
            ),
            (
                "app/tests/auth_tokens.rs",
                "#[derive(Debug, Clone)]\nstruct T;\n",
            ),
            (
                "app/src/main.rs",
                "fn main() { std::env::var(\"APP_DEBUG\"); }\n// \"Demo started\"\n",
            ),
            ("app/tests/integration.rs", "mod x;\n"),
            ("xtask/Cargo.toml", "[package]\nname = \"xtask\"\n"),
            (
                "xtask/src/main.rs",
                "match a { Some(\"test\") => {}, _ => {} }\n",
            ),
            (
                "ui/package.json",
                "{ \"scripts\": { \"check\": \"svelte-check\" } }\n",
            ),
            (
                "ui/src/App.svelte",
                "<script>let open = $state(false);</script>\n",
            ),
        ])
    }

    #[test]
    fn a_module_path_whose_function_lives_elsewhere_is_reported() {
        let doc = "The exception: `painting::apply` sets the environment.";

        let unknown = unknown_names(doc, &small_repo());

        assert_eq!(unknown, ["painting::apply"]);
    }

    #[test]
    fn names_that_exist_pass() {
        let doc = "`web_process::apply`, `painting::choose()`, `Problem::{NotRunning, Locked}`, \
                   `app/src/painting.rs`, `src/web_process.rs`, `demo_app::web_process::apply`, \
                   `LIMIT`, `APP_DEBUG=1`, `Demo started`, `tokio`, `App`, `open`, \
                   `cargo xtask test`, `cargo test -p demo-app --test integration`, \
                   `npm --prefix ui run check`, `ui/src/<anything>.svelte`, `tests/auth_*.rs`, \
                   `FromRef`, `Debug`, `Clone`.";

        let unknown = unknown_names(doc, &small_repo());

        assert!(unknown.is_empty(), "{unknown:?}");
    }

    #[test]
    fn each_kind_of_missing_name_is_reported() {
        let doc = "`src/painted.rs`, `Problem::Gone`, `Missing`, `NO_SUCH_VAR=1`, \
                   `cargo xtask deploy`, `cargo test -p nowhere`, `cargo test --test nothing`, \
                   `npm run lint`, `Demo stopped`, `demo_app::painting::apply`, `/oauth/none`, \
                   `tests/network_*.rs`, `Display`.";

        let unknown = unknown_names(doc, &small_repo());

        assert_eq!(
            unknown,
            [
                "src/painted.rs",
                "Problem::Gone",
                "Missing",
                "NO_SUCH_VAR=1",
                "cargo xtask deploy",
                "cargo test -p nowhere",
                "cargo test --test nothing",
                "npm run lint",
                "Demo stopped",
                "demo_app::painting::apply",
                "/oauth/none",
                "tests/network_*.rs",
                "Display",
            ]
        );
    }

    #[test]
    fn fenced_blocks_are_not_read_and_spans_may_break_lines() {
        let doc = "```\n`Missing`\n```\nRun `cargo xtask\n  test` first.";

        assert_eq!(code_spans(doc), ["cargo xtask test"]);
    }
}
