//! Registers the Network API's schema (the sandbox's export of the real network's
//! schema) with cynic, so every document in `src/network/documents/` is checked
//! against it at compile time.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("cargo::rerun-if-changed=../sandbox/schema.graphql");
    cynic_codegen::register_schema("network")
        .from_sdl_file("../sandbox/schema.graphql")?
        .as_default()?;
    Ok(())
}
