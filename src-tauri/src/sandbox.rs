//! The built-in "Local sandbox" environment: `rxdesk-sandbox` started
//! in-process on loopback with the demo fixture, its data under the app's data
//! directory. Started on first use and kept for the life of the app.
//!
//! Its issuer is kept in its data directory (the origin of its first start),
//! so a restart on another port keeps every token it issued valid; a session is
//! bound to the addresses that issued it, and follows the built-in sandbox to a
//! new port only because it keeps that issuer (`core/session.rs`). It still
//! reuses the port it had last time (recorded in its data directory) whenever
//! that port is free, so its address, shown on the Settings screen, rarely
//! changes.

#[cfg(not(feature = "sandbox"))]
pub use absent::LocalSandbox;

#[cfg(feature = "sandbox")]
pub use built_in::LocalSandbox;

/// Where the built-in sandbox listens, and the issuer it names itself by (the
/// same across restarts on other ports).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Address {
    pub url: url::Url,
    pub issuer: String,
}

/// A production build: no sandbox compiled in, and none offered.
#[cfg(not(feature = "sandbox"))]
mod absent {
    use std::path::PathBuf;

    use url::Url;

    /// Stands where the built-in sandbox would: there is none.
    #[derive(Debug)]
    pub struct LocalSandbox;

    impl LocalSandbox {
        /// Whether this build has the built-in sandbox.
        pub const AVAILABLE: bool = false;

        pub fn on_disk(_data_dir: PathBuf) -> Self {
            Self
        }

        pub fn in_memory() -> Self {
            Self
        }

        pub async fn address(&self) -> Result<super::Address, String> {
            Err("This build of Rx Desk has no built-in sandbox: add your network on the Settings screen.".to_owned())
        }

        pub async fn running_url(&self) -> Option<Url> {
            None
        }

        pub async fn stop(&self) {}
    }
}

#[cfg(feature = "sandbox")]
mod built_in {
    use std::net::SocketAddr;
    use std::path::{Path, PathBuf};

    use rxdesk_sandbox::{Config, Sandbox, Storage};
    use tokio::sync::Mutex;
    use url::Url;

    use super::Address;

    impl Address {
        fn of(sandbox: &Sandbox) -> Self {
            Self {
                url: sandbox.url().clone(),
                issuer: sandbox.issuer().to_owned(),
            }
        }
    }

    /// A sandbox started on demand.
    #[derive(Debug)]
    pub struct LocalSandbox {
        storage: Storage,
        running: Mutex<Option<Sandbox>>,
    }

    impl LocalSandbox {
        /// Whether this build has the built-in sandbox.
        pub const AVAILABLE: bool = true;

        /// A sandbox keeping its data under `data_dir`.
        pub fn on_disk(data_dir: PathBuf) -> Self {
            Self {
                storage: Storage::Data(data_dir),
                running: Mutex::new(None),
            }
        }

        /// A sandbox keeping everything in memory (tests).
        pub fn in_memory() -> Self {
            Self {
                storage: Storage::InMemory,
                running: Mutex::new(None),
            }
        }

        /// Where the sandbox listens and its issuer, starting it first if needed.
        pub async fn address(&self) -> Result<Address, String> {
            let mut running = self.running.lock().await;
            if let Some(sandbox) = running.as_ref() {
                return Ok(Address::of(sandbox));
            }
            let remembered = match &self.storage {
                Storage::Data(dir) => {
                    std::fs::create_dir_all(dir)
                        .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
                    remembered_port(dir)
                }
                Storage::InMemory => None,
            };
            let config = |port: u16| Config {
                storage: self.storage.clone(),
                listen: SocketAddr::from(([127, 0, 0, 1], port)),
                ..Config::in_memory()
            };
            let started = match remembered {
                Some(port) => match Sandbox::start(config(port)).await {
                    Ok(sandbox) => Ok(sandbox),
                    Err(e) => {
                        tracing::info!(error = %e, "the local sandbox's last port is taken; a new one");
                        Sandbox::start(config(0)).await
                    }
                },
                None => Sandbox::start(config(0)).await,
            };
            let sandbox = started.map_err(|e| format!("the local sandbox did not start: {e}"))?;
            tracing::info!(url = %sandbox.url(), "local sandbox started");
            let address = Address::of(&sandbox);
            if let (Storage::Data(dir), Some(port)) = (&self.storage, address.url.port())
                && let Err(e) = remember_port(dir, port)
            {
                tracing::warn!(error = %e, "the local sandbox's port is not recorded");
            }
            *running = Some(sandbox);
            Ok(address)
        }

        /// Stops the sandbox if it runs (the app's end, or a test's restart).
        pub async fn stop(&self) {
            if let Some(sandbox) = self.running.lock().await.take() {
                sandbox.shutdown().await;
            }
        }

        /// The origin if the sandbox is already running.
        pub async fn running_url(&self) -> Option<Url> {
            self.running.lock().await.as_ref().map(|s| s.url().clone())
        }
    }

    const PORT_FILE: &str = "port";

    fn remembered_port(dir: &Path) -> Option<u16> {
        std::fs::read_to_string(dir.join(PORT_FILE))
            .ok()?
            .trim()
            .parse()
            .ok()
            .filter(|p| *p != 0)
    }

    /// Written to a temporary file and renamed: a crash leaves the old or the new.
    fn remember_port(dir: &Path, port: u16) -> std::io::Result<()> {
        let tmp = dir.join(format!("{PORT_FILE}.tmp"));
        std::fs::write(&tmp, format!("{port}\n"))?;
        std::fs::rename(&tmp, dir.join(PORT_FILE))
    }

    #[cfg(test)]
    mod tests {
        #![allow(clippy::unwrap_used)]
        use super::*;

        #[tokio::test]
        async fn a_restarted_local_sandbox_keeps_its_origin_and_its_issuer() {
            let dir = tempfile::tempdir().unwrap();
            let first = LocalSandbox::on_disk(dir.path().join("sandbox"));
            let before = first.address().await.unwrap();
            first.stop().await;

            let again = LocalSandbox::on_disk(dir.path().join("sandbox"));
            let after = again.address().await.unwrap();
            again.stop().await;

            assert_eq!(before, after);
        }

        #[tokio::test]
        async fn a_local_sandbox_moved_off_its_taken_port_keeps_its_issuer() {
            let dir = tempfile::tempdir().unwrap();
            let data = dir.path().join("sandbox");
            let first = LocalSandbox::on_disk(data.clone());
            let before = first.address().await.unwrap();
            first.stop().await;
            let holder = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            remember_port(&data, holder.local_addr().unwrap().port()).unwrap();

            let again = LocalSandbox::on_disk(data);
            let after = again.address().await.unwrap();
            again.stop().await;

            assert_ne!(after.url, before.url);
            assert_eq!(after.issuer, before.issuer);
        }

        #[tokio::test]
        async fn a_taken_port_gives_way_to_a_new_one() {
            let dir = tempfile::tempdir().unwrap();
            let data = dir.path().join("sandbox");
            let holder = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            let taken = holder.local_addr().unwrap().port();
            std::fs::create_dir_all(&data).unwrap();
            remember_port(&data, taken).unwrap();

            let sandbox = LocalSandbox::on_disk(data.clone());
            let address = sandbox.address().await.unwrap();
            sandbox.stop().await;

            assert_ne!(address.url.port(), Some(taken));
            assert_eq!(remembered_port(&data), address.url.port());
        }
    }
}
