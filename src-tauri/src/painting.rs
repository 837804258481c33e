//! How the web view paints, chosen once before the first window exists.
//!
//! WebKitGTK paints pages with Skia, on the GPU through OpenGL by default. On a
//! machine with no GPU render node (`/dev/dri/renderD*`: a virtual desktop, a
//! thin client, a VM) that OpenGL is Mesa's software rasterizer, llvmpipe: each
//! kind of drawing the page does (rounded corners, circles, text from a glyph
//! atlas…) becomes a shader program compiled by LLVM on the CPU and kept in the
//! web process. Measured on a signed-in patient page (`rxdesk-bench --only
//! app`, no render node): the web process held some 35 MiB more of the C heap
//! painting "on the GPU" than painting with Skia on the CPU, where the pixels
//! were made on the CPU in either case. So without a render node the app asks
//! WebKit for CPU painting (`WEBKIT_SKIA_ENABLE_CPU_RENDERING=1`, which the web
//! process inherits); with one it leaves WebKit's default. A value the user or
//! IT already set is never overridden.
//!
//! Linux only: elsewhere the system web view paints as the platform decides.
//! What does not live here: setting the variable (`web_process::apply`), any
//! other WebKit setting.

use std::path::Path;

/// The variable WebKitGTK reads in the web process.
pub const CPU_PAINTING_VAR: &str = "WEBKIT_SKIA_ENABLE_CPU_RENDERING";

/// How the web view will paint, and why — logged once at start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Painting {
    /// WebKit's default (GPU painting where it has OpenGL).
    Default,
    /// Skia on the CPU: this machine has no GPU render node.
    CpuNoRenderNode,
    /// The environment already says how to paint; left as it is.
    AsConfigured,
}

impl Painting {
    /// The variable and value this choice puts in the web process's
    /// environment; `None`: nothing to set.
    pub fn setting(self) -> Option<(&'static str, &'static str)> {
        match self {
            Painting::CpuNoRenderNode => Some((CPU_PAINTING_VAR, "1")),
            Painting::Default | Painting::AsConfigured => None,
        }
    }
}

/// What to do on a machine where `configured` says whether the variable is
/// already set and `render_nodes` is how many GPU render nodes it has.
pub fn choose(configured: bool, render_nodes: usize) -> Painting {
    match (configured, render_nodes) {
        (true, _) => Painting::AsConfigured,
        (false, 0) => Painting::CpuNoRenderNode,
        (false, _) => Painting::Default,
    }
}

/// The GPU render nodes under `dri` (normally `/dev/dri`); none when it does
/// not exist.
pub fn render_nodes(dri: &Path) -> usize {
    std::fs::read_dir(dri).map_or(0, |entries| {
        entries
            .filter_map(Result::ok)
            .filter(|e| e.file_name().to_string_lossy().starts_with("renderD"))
            .count()
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::expect_used)]
    use super::*;

    #[test]
    fn a_machine_without_a_render_node_paints_on_the_cpu() {
        assert_eq!(choose(false, 0), Painting::CpuNoRenderNode);
    }

    #[test]
    fn painting_on_the_cpu_sets_the_variable_to_one_and_no_other_choice_sets_it() {
        assert_eq!(
            Painting::CpuNoRenderNode.setting(),
            Some((CPU_PAINTING_VAR, "1"))
        );
        assert_eq!(Painting::Default.setting(), None);
        assert_eq!(Painting::AsConfigured.setting(), None);
    }

    #[test]
    fn a_machine_with_a_render_node_keeps_webkits_default() {
        assert_eq!(choose(false, 1), Painting::Default);
    }

    #[test]
    fn a_choice_already_in_the_environment_is_left_alone() {
        assert_eq!(choose(true, 0), Painting::AsConfigured);
        assert_eq!(choose(true, 2), Painting::AsConfigured);
    }

    #[test]
    fn render_nodes_are_counted_and_other_devices_ignored() {
        let dri = tempfile::tempdir().expect("a temporary directory");
        for name in ["card0", "renderD128", "renderD129", "by-path"] {
            std::fs::write(dri.path().join(name), b"").expect("a device stand-in");
        }
        assert_eq!(render_nodes(dri.path()), 2);
    }

    #[test]
    fn a_missing_dri_directory_has_no_render_node() {
        let dri = tempfile::tempdir().expect("a temporary directory");
        assert_eq!(render_nodes(&dri.path().join("dri")), 0);
    }
}
