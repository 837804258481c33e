//! The web process's environment, set once as the first thing `main` does.
//!
//! WebKitGTK starts its web process with the app's environment, and reads a few
//! choices from it that no API reaches: how to paint ([`crate::painting`]) and
//! whether to compile the page's scripts ([`crate::scripting`]). Those modules
//! decide and say what each choice sets; this one writes the variables — the
//! workspace's one `unsafe` exception, because setting an environment variable
//! is only sound while no other thread exists.

use crate::painting::Painting;
use crate::scripting::Scripting;

/// What the web process was told, logged with "Rx Desk starting".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WebProcess {
    pub painting: Painting,
    pub scripting: Scripting,
}

/// Chooses for this machine and sets the variables the choices need.
///
/// # Safety
/// Sets process environment variables: call it from `main` before any other
/// thread exists (nothing else reads or writes the environment concurrently).
#[cfg(target_os = "linux")]
#[allow(unsafe_code)] // The workspace's one exception: see the safety contract above.
pub unsafe fn apply() -> WebProcess {
    use crate::{painting, scripting};
    let configured = |var: &str| std::env::var_os(var).is_some();
    let chosen = WebProcess {
        painting: painting::choose(
            configured(painting::CPU_PAINTING_VAR),
            painting::render_nodes(std::path::Path::new("/dev/dri")),
        ),
        scripting: scripting::choose(configured(scripting::JIT_VAR)),
    };
    for (var, value) in [chosen.painting.setting(), chosen.scripting.setting()]
        .into_iter()
        .flatten()
    {
        // SAFETY: the caller guarantees no other thread exists yet.
        unsafe { std::env::set_var(var, value) };
    }
    chosen
}

/// Elsewhere the platform's web view decides.
///
/// # Safety
/// Nothing to uphold off Linux; `unsafe` only to match the Linux signature.
#[cfg(not(target_os = "linux"))]
#[allow(unsafe_code)] // Declared unsafe to match the Linux signature; does nothing unsafe.
pub unsafe fn apply() -> WebProcess {
    WebProcess {
        painting: Painting::Default,
        scripting: Scripting::Default,
    }
}
