//! Where a binary's bytes go, from the linker's map (`-Wl,-Map=FILE`, written
//! by `cargo xtask bundle` for Rx Desk and by the empty app's build script):
//! the installed binaries carry no symbols, the map names every function and
//! constant kept with its size. Each input section is given to a crate — the
//! first crate its (demangled) symbol names outside the standard library, the
//! standard library itself, or, for C and assembly, the crate whose archive
//! holds the object (`ring (C)`); what no symbol names is counted apart
//! (merged strings, anonymous constants). Unwind tables and relocations are
//! whole sections, reported as such.
//!
//! The map is lld's format (`VMA LMA Size Align Out In Symbol`, the three
//! name columns indented 0, 8 and 16), which rustc's default linker on
//! x86_64 Linux writes.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{Context, Result};

/// Output sections whose input sections are attributed to crates.
const ATTRIBUTED: [&str; 7] = [
    ".text",
    ".rodata",
    ".data.rel.ro",
    ".gcc_except_table",
    ".data",
    ".tdata",
    ".init_array",
];

/// Crates of the standard library: a symbol naming only these is `std`'s.
const STD: [&str; 13] = [
    "std",
    "core",
    "alloc",
    "hashbrown",
    "std_detect",
    "rustc_demangle",
    "gimli",
    "addr2line",
    "miniz_oxide",
    "object",
    "memchr",
    "panic_unwind",
    "adler2",
];

/// What no symbol names: merged strings and literals, anonymous constants.
pub const UNNAMED: &str = "(unnamed constants and strings)";

/// A binary's bytes by crate and by output section.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct LinkMap {
    /// Bytes of the attributed sections, by crate.
    pub crates: BTreeMap<String, u64>,
    /// Bytes of every output section (`.text`, `.eh_frame`, …).
    pub sections: BTreeMap<String, u64>,
}

impl LinkMap {
    /// The map at `path`.
    pub fn read(path: &Path) -> Result<Self> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("no linker map at {}", path.display()))?;
        Ok(parse(&text))
    }

    /// Bytes of the output sections named.
    pub fn section_bytes(&self, names: &[&str]) -> u64 {
        names
            .iter()
            .filter_map(|n| self.sections.get(*n))
            .sum::<u64>()
    }

    /// The `n` crates holding the most, largest first.
    pub fn largest(&self, n: usize) -> Vec<(String, u64)> {
        let mut all: Vec<(String, u64)> =
            self.crates.iter().map(|(c, b)| (c.clone(), *b)).collect();
        all.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        all.truncate(n);
        all
    }

    /// Per crate, what this binary holds beyond `other` (crates it holds
    /// less of are left out), largest first.
    pub fn beyond(&self, other: &LinkMap) -> Vec<(String, u64)> {
        let mut more: Vec<(String, u64)> = self
            .crates
            .iter()
            .filter_map(|(c, b)| {
                let theirs = other.crates.get(c).copied().unwrap_or(0);
                (*b > theirs).then(|| (c.clone(), b - theirs))
            })
            .collect();
        more.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        more
    }
}

/// One line of the map: its size, indentation (0 output section, 8 input
/// section, 16 symbol) and name.
fn line(text: &str) -> Option<(u64, usize, &str)> {
    let mut rest = text;
    let mut columns = [0u64; 3];
    for column in &mut columns {
        let trimmed = rest.trim_start();
        let end = trimmed.find(' ')?;
        *column = u64::from_str_radix(&trimmed[..end], 16).ok()?;
        rest = &trimmed[end..];
    }
    // The alignment, then one space, then the indented name.
    let trimmed = rest.trim_start();
    let end = trimmed.find(' ')?;
    trimmed[..end].parse::<u64>().ok()?;
    let name_column = &trimmed[end + 1..];
    let name = name_column.trim_start();
    let indent = name_column.len() - name.len();
    Some((columns[2], indent, name.trim_end()))
}

/// Undoes the escapes of legacy Rust mangling lld leaves in demangled names
/// (`$LT$`, `..`, …).
fn unescape(name: &str) -> String {
    let mut out = name.to_owned();
    for (from, to) in [
        ("$LT$", "<"),
        ("$GT$", ">"),
        ("$u20$", " "),
        ("$RF$", "&"),
        ("$BP$", "*"),
        ("$C$", ","),
        ("$u27$", "'"),
        ("$u5b$", "["),
        ("$u5d$", "]"),
        ("$u7b$", "{"),
        ("$u7d$", "}"),
        ("$u7e$", "~"),
        ("..", "::"),
    ] {
        out = out.replace(from, to);
    }
    out.trim_start_matches('_').to_owned()
}

/// The crate a demangled symbol belongs to: the first crate a path in it
/// starts with that is not the standard library's; `std` when only those.
pub fn crate_of(symbol: &str) -> Option<String> {
    let symbol = unescape(symbol);
    let bytes = symbol.as_bytes();
    let mut found_std = false;
    let mut i = 0;
    while let Some(at) = symbol[i..].find("::") {
        let end = i + at;
        let start = symbol[..end]
            .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .map_or(0, |p| p + 1);
        let segment = &symbol[start..end];
        // A path starts a crate name only at the start or after `<`, ` `, `&`, `(`, `[`, `,`, `*`.
        let starts_path = start == 0
            || matches!(
                bytes[start - 1],
                b'<' | b' ' | b'&' | b'(' | b'[' | b',' | b'*'
            );
        let is_name = segment
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_lowercase() || c == '_');
        if starts_path && is_name && !segment.is_empty() {
            if STD.contains(&segment) {
                found_std = true;
            } else {
                return Some(segment.to_owned());
            }
        }
        i = end + 2;
    }
    found_std.then(|| "std".to_owned())
}

/// The crate of a non-Rust object from its archive: `…/libring-0123abcd….rlib(x.o)`
/// is `ring (C)`; `None` for Rust code or anything else.
fn archive_crate(input: &str) -> Option<String> {
    let (file, _) = input.split_once(".rlib(")?;
    if input.contains(".rcgu.o") {
        return None;
    }
    let name = file.rsplit('/').next()?.strip_prefix("lib")?;
    let (name, hash) = name.rsplit_once('-')?;
    hash.chars()
        .all(|c| c.is_ascii_hexdigit())
        .then(|| format!("{name} (C)"))
}

/// Gives the pending input section to its owner: the crate `symbol` (its
/// first symbol) names, else the crate of its archive, else the C runtime or
/// the unnamed.
fn settle(map: &mut LinkMap, pending: &mut Option<(u64, String)>, symbol: Option<&str>) {
    let Some((size, input)) = pending.take() else {
        return;
    };
    let owner = symbol
        .and_then(crate_of)
        .or_else(|| archive_crate(&input))
        .unwrap_or_else(|| {
            if input.starts_with("/usr/") {
                "(C runtime)".to_owned()
            } else {
                UNNAMED.to_owned()
            }
        });
    *map.crates.entry(owner).or_default() += size;
}

/// Reads a map's text.
pub fn parse(text: &str) -> LinkMap {
    let mut map = LinkMap::default();
    let mut section = String::new();
    // The input section waiting for its first symbol: its size and origin.
    let mut pending: Option<(u64, String)> = None;
    for text_line in text.lines() {
        let Some((size, indent, name)) = line(text_line) else {
            continue;
        };
        match indent {
            0 => {
                settle(&mut map, &mut pending, None);
                section = name.to_owned();
                *map.sections.entry(section.clone()).or_default() += size;
            }
            8 if ATTRIBUTED.contains(&section.as_str()) => {
                settle(&mut map, &mut pending, None);
                pending = Some((size, name.to_owned()));
            }
            16 if pending.is_some() => settle(&mut map, &mut pending, Some(name)),
            _ => {}
        }
    }
    settle(&mut map, &mut pending, None);
    map
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    const SAMPLE: &str = "\
             VMA              LMA     Size Align Out     In      Symbol
          2cc840           2cc840     1000    64 .text
          2cc840           2cc840       22    16         /usr/lib/x86_64-linux-gnu/Scrt1.o:(.text)
          2cc840           2cc840       22     1                 _start
          2cc92e           2cc92e      16f     1         /t/deps/rxdesk-1.rxdesk.2-cgu.0.rcgu.o:(.text._ZN4core3ptr43drop_in_place$LT$rxdesk_lib..StartError$GT$17h2E)
          2cc92e           2cc92e      16f     1                 core::ptr::drop_in_place$LT$rxdesk_lib..StartError$GT$::h20dba52b1fad0020
          2cca9d           2cca9d      100     1         /t/deps/rxdesk-1.rxdesk.2-cgu.0.rcgu.o:(.text._ZN53_$LT$aes..Token$GT$)
          2cca9d           2cca9d      100     1                 _$LT$aes..Token$u20$as$u20$core..default..Default$GT$::default::hf9e2d56098449c32
          2ccb40           2ccb40      200    16         /t/deps/rxdesk-1.rxdesk.2-cgu.0.rcgu.o:(.text._RNvXs_NtCs1_5alloc3vec)
          2ccb40           2ccb40      200     1                 <alloc::vec::Vec<u8> as core::clone::Clone>::clone
          2ccd40           2ccd40      300    16         /t/deps/libring-0123456789abcdef.rlib(aes-x86_64-elf.o):(.text)
          2ccd40           2ccd40      300     1                 aes_hw_encrypt
          2cd040           2cd040       50     1         /t/deps/rxdesk-1.rxdesk.2-cgu.0.rcgu.o:(.text._ZN3zbus5proxy5Proxy4call17h1E)
          2cd040           2cd040       50     1                 zbus::proxy::Proxy::call::h1
          2cd040           2cd040       50     1                 zbus::proxy::Proxy::call_alias::h2
           71000            71000      400  4096 .rodata
           71000            71000      380     1         /t/deps/rxdesk-1.rxdesk.2-cgu.0.rcgu.o:(.rodata..Lanon.ed3e.6)
           71380            71380       80     1         <internal>:(.rodata.str1.1)
          21ffc8           21ffc8      abc     8 .eh_frame
          21ffc8           21ffc8      abc     8         <internal>:(.eh_frame)
";

    #[test]
    fn input_sections_go_to_the_crate_their_symbol_names() {
        let map = parse(SAMPLE);

        assert_eq!(map.crates["rxdesk_lib"], 0x16f);
        assert_eq!(map.crates["aes"], 0x100);
        assert_eq!(map.crates["std"], 0x200);
        assert_eq!(map.crates["ring (C)"], 0x300);
        assert_eq!(
            map.crates["zbus"], 0x50,
            "counted once, however many symbols"
        );
        assert_eq!(map.crates["(C runtime)"], 0x22);
        assert_eq!(map.crates[UNNAMED], 0x400);
    }

    #[test]
    fn output_sections_are_counted_whole_and_unwind_tables_not_attributed() {
        let map = parse(SAMPLE);

        assert_eq!(map.sections[".text"], 0x1000);
        assert_eq!(map.section_bytes(&[".eh_frame", ".rodata"]), 0xabc + 0x400);
        let attributed: u64 = map.crates.values().sum();
        assert_eq!(
            attributed,
            0x22 + 0x16f + 0x100 + 0x200 + 0x300 + 0x50 + 0x400
        );
    }

    #[test]
    fn a_crate_is_the_first_non_std_path_a_symbol_names() {
        assert_eq!(
            crate_of("core::ptr::drop_in_place<tokio::runtime::Runtime>").as_deref(),
            Some("tokio")
        );
        assert_eq!(
            crate_of("<alloc::vec::Vec<u8> as serde::Serialize>::serialize").as_deref(),
            Some("serde")
        );
        assert_eq!(
            crate_of("<alloc::vec::Vec<u8>>::push").as_deref(),
            Some("std")
        );
        assert_eq!(crate_of("main"), None);
        assert_eq!(
            crate_of("_$LT$rustls..conn..Connection$u20$as$u20$core..fmt..Debug$GT$::fmt")
                .as_deref(),
            Some("rustls")
        );
    }

    #[test]
    fn beyond_lists_what_one_binary_holds_more_of_than_the_other() {
        let ours = parse(SAMPLE);
        let mut theirs = ours.clone();
        theirs.crates.remove("zbus");
        theirs.crates.insert("std".into(), 0x100);
        theirs.crates.insert("wry".into(), 0x999);

        let more = ours.beyond(&theirs);

        assert_eq!(
            more,
            vec![("std".to_owned(), 0x100), ("zbus".to_owned(), 0x50)]
        );
        assert_eq!(ours.largest(1), vec![(UNNAMED.to_owned(), 0x400)]);
    }
}
