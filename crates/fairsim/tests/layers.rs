//! The engine's modules form layers (docs/architecture.md): each may use only the layers below
//! it, so there is no loop between modules and the ground floor (packets, random streams,
//! timers) knows nothing of what is built on it. This test reads the sources and fails on any
//! `crate::…` path that runs back up, naming the file and the module it reached for.

use std::path::Path;

/// Layers from the ground up; a module may use the modules of lower layers only.
const LAYERS: &[&[&str]] = &[
    &["error"],
    &["units", "heap", "rng", "limits", "params"],
    &["component"],
    &["net", "timer"],
    &["reference"],
    &["stats", "qdisc", "traffic"],
    &["transport"],
    &["pcap"],
    &["node"],
    &["scenario"],
    &["engine"],
    &["report"],
];

fn layer(module: &str) -> Option<usize> {
    LAYERS.iter().position(|l| l.contains(&module))
}

/// The code of a file without its test module (tests may build fixtures from anywhere).
fn without_tests(src: &str) -> &str {
    src.find("#[cfg(test)]").map_or(src, |i| &src[..i])
}

fn visit(dir: &Path, files: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            visit(&path, files);
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
}

#[test]
fn no_module_uses_a_layer_above_its_own() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = vec![];
    visit(&src, &mut files);
    let mut wrong = vec![];
    let mut checked = 0;
    for file in &files {
        let rel = file.strip_prefix(&src).unwrap();
        let top = rel.components().next().unwrap().as_os_str().to_str().unwrap().trim_end_matches(".rs");
        if top == "lib" {
            continue;
        }
        let own = layer(top).unwrap_or_else(|| panic!("module `{top}` is in no layer: add it to LAYERS"));
        let text = std::fs::read_to_string(file).unwrap();
        for used in without_tests(&text).split("crate::").skip(1) {
            let name: String = used.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            if name == top || name.is_empty() {
                continue;
            }
            checked += 1;
            let theirs = layer(&name).unwrap_or_else(|| panic!("module `{name}` is in no layer: add it to LAYERS"));
            if theirs >= own {
                wrong.push(format!("{} (layer {own}) uses crate::{name} (layer {theirs})", rel.display()));
            }
        }
    }
    assert!(checked > 100, "the scan found only {checked} paths: is it reading the sources?");
    assert!(wrong.is_empty(), "imports that run up or across the layers:\n{}", wrong.join("\n"));
}
