//! Whether the web process's JavaScript engine compiles the page's scripts to
//! machine code, chosen once before the first window exists.
//!
//! JavaScriptCore interprets a script first and hands what runs often to its
//! just-in-time compilers, whose generated code, working memory and own code
//! pages stay in the web process for its life. Rx Desk's page is forms and
//! lists that change when the user acts. Measured on the signed-in patient
//! page (`rxdesk-bench --only app`, then `--only felt`, same tree, same hour):
//! with the compilers off (`JSC_useJIT=false`, which the web process's
//! JavaScriptCore reads from the environment it inherits) the app's processes
//! held 271 MiB instead of 285 (the empty reference app, which runs almost no
//! script, 229 instead of 232), and the page's measured interactions —
//! opening a patient, a draft's screening, search as you type, signing 1, 10
//! and 100 — stayed within their run-to-run spread. The web process, which
//! shows patient data, also no longer reserves its 1 GiB writable and
//! executable region for generated code (`/proc/<pid>/maps`). So the app runs
//! its scripts interpreted. A value the user or IT already set is never
//! overridden.
//!
//! Linux only (WebKitGTK): elsewhere the platform's web view decides.
//! What does not live here: writing the variable (`web_process::apply`).

/// The variable JavaScriptCore reads in the web process.
pub const JIT_VAR: &str = "JSC_useJIT";

/// How the web view will run the page's scripts — logged once at start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scripting {
    /// The platform's default (the web view of macOS and Windows).
    Default,
    /// Interpreted, without the just-in-time compilers.
    Interpreted,
    /// The environment already says; left as it is.
    AsConfigured,
}

impl Scripting {
    /// The variable and value this choice puts in the web process's
    /// environment; `None`: nothing to set.
    pub fn setting(self) -> Option<(&'static str, &'static str)> {
        match self {
            Scripting::Interpreted => Some((JIT_VAR, "false")),
            Scripting::Default | Scripting::AsConfigured => None,
        }
    }
}

/// What to do when `configured` says whether the variable is already set.
pub fn choose(configured: bool) -> Scripting {
    if configured {
        Scripting::AsConfigured
    } else {
        Scripting::Interpreted
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scripts_run_interpreted_unless_the_environment_says_otherwise() {
        assert_eq!(choose(false), Scripting::Interpreted);
    }

    #[test]
    fn interpreted_scripts_turn_the_jit_off_and_no_other_choice_sets_it() {
        assert_eq!(Scripting::Interpreted.setting(), Some((JIT_VAR, "false")));
        assert_eq!(Scripting::Default.setting(), None);
        assert_eq!(Scripting::AsConfigured.setting(), None);
    }

    #[test]
    fn a_choice_already_in_the_environment_is_left_alone() {
        assert_eq!(choose(true), Scripting::AsConfigured);
    }
}
