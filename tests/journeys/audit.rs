//! The journey that reads the network's own records after all the others:
//! whatever the link did to the app's calls (lost answers after commit
//! included), no draft, order or signature exists twice. On a bad link it
//! also requires that faults were injected at all: a run the link never
//! touched proves nothing about it.

use anyhow::{Context, Result, bail};

use crate::Run;

/// `rxdesk-sandbox audit` over the data of every sandbox the run started
/// (read-only, while they run): exit 0 is clean, 1 lists duplicates by id.
pub async fn the_network_holds_no_duplicate_draft_order_or_signature(run: &mut Run) -> Result<()> {
    let layout = &run.world.layout;
    let mut audited = 0;
    for entry in std::fs::read_dir(layout.run_dir())? {
        let dir = entry?.path();
        let is_data = dir.is_dir()
            && dir
                .file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.ends_with("-data"));
        if !is_data {
            continue;
        }
        let out = tokio::process::Command::new(&layout.sandbox)
            .arg("audit")
            .arg("--data")
            .arg(&dir)
            .output()
            .await
            .with_context(|| format!("running {} audit", layout.sandbox.display()))?;
        if !out.status.success() {
            bail!(
                "the audit of {} found trouble ({}):\n{}{}",
                dir.display(),
                out.status,
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
        }
        audited += 1;
    }
    if audited == 0 {
        bail!(
            "no sandbox data under {} to audit",
            layout.run_dir().display()
        );
    }
    println!("  audited {audited} sandbox data dir(s): no duplicates");
    if run.world.layout.link.is_some() {
        let status = run.world.sandbox.link_status().await?;
        let counters = &status["counters"];
        let faults: u64 = counters["total"]
            .as_object()
            .into_iter()
            .flatten()
            .filter(|(kind, _)| kind.as_str() != "latency")
            .filter_map(|(_, n)| n.as_u64())
            .sum();
        println!(
            "  the link injected {faults} fault(s): {} (requests per operation: {})",
            counters["total"], counters["requests"]
        );
        if faults == 0 {
            bail!(
                "the bad link injected no fault: pick a seed that does ({})",
                counters["requests"]
            );
        }
    }
    Ok(())
}
