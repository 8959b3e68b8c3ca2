//! The engine's files form layers (docs/architecture.md), checked by parsing every source file:
//!
//! - each top-level module uses only the modules of lower layers (`LAYERS`), so the ground floor
//!   (packets, random streams, timers) knows nothing of what is built on it;
//! - inside `transport/`, each folder uses only the folders below it (`TRANSPORT_LAYERS`);
//! - no file reaches, through any chain of paths, back to itself: no loop of files anywhere
//!   (a `mod.rs` that lists its children's declarations must not define what they use).
//!
//! A file "uses" another when a path in it (a `use`, or a path in code: `crate::x::f()`,
//! `super::T`) names an item of the other file's module. Test code (`#[cfg(test)]` items) is
//! left out: tests may build fixtures from anywhere. Declaring a child (`mod x;`) is not a use.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use syn::visit::Visit;

/// Layers from the ground up; a module may use the modules of lower layers only.
const LAYERS: &[&[&str]] = &[
    &["error"],
    &["units", "heap", "rng", "limits", "params", "memory"],
    &["component"],
    &["foreign"],
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

/// The folders of `transport/` from the ground up (files directly in `transport/` other than
/// `mod.rs` are the ground floor: the `Sender` contract and the stack presets' names).
const TRANSPORT_LAYERS: &[&[&str]] = &[&[""], &["reliability"], &["controllers"], &["senders"], &["mod"]];

/// A module path such as `["transport", "reliability", "sack"]` (the crate root is `[]`).
type Module = Vec<String>;

struct Source {
    module: Module,
    ast: syn::File,
}

fn visit_dir(dir: &Path, files: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            visit_dir(&path, files);
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
}

fn module_of(rel: &Path) -> Module {
    let mut parts: Vec<String> = rel.iter().map(|p| p.to_str().unwrap().to_string()).collect();
    let last = parts.pop().unwrap();
    let stem = last.trim_end_matches(".rs");
    if stem != "mod" && stem != "lib" {
        parts.push(stem.to_string());
    }
    parts
}

/// Every source file but those of test-only modules (`#[cfg(test)] mod tests;`), which may
/// build fixtures from anywhere.
fn sources() -> Vec<Source> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = vec![];
    visit_dir(&src, &mut files);
    files.sort();
    let all: Vec<Source> = files
        .into_iter()
        .map(|file| {
            let text = std::fs::read_to_string(&file).unwrap();
            let ast = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            let rel = file.strip_prefix(&src).unwrap().to_path_buf();
            Source { module: module_of(&rel), ast }
        })
        .collect();
    let mut test_only: Vec<Module> = vec![];
    for s in &all {
        for item in &s.ast.items {
            if let syn::Item::Mod(m) = item {
                if m.content.is_none() && is_test(&m.attrs) {
                    test_only.push(s.module.iter().cloned().chain([m.ident.to_string()]).collect());
                }
            }
        }
    }
    all.into_iter().filter(|s| !test_only.iter().any(|t| s.module.starts_with(t))).collect()
}

fn is_test(attrs: &[syn::Attribute]) -> bool {
    attrs
        .iter()
        .any(|a| a.path().is_ident("cfg") && a.parse_args::<syn::Meta>().is_ok_and(|m| m.path().is_ident("test")))
}

/// Every path a file's non-test code writes, as its segments (a `use` tree expanded).
#[derive(Default)]
struct Paths {
    found: Vec<Vec<String>>,
    /// Inline modules entered (`mod name { ... }`), so `super` inside them resolves.
    inline: Vec<String>,
    found_in: Vec<Vec<String>>,
}

impl Paths {
    fn push(&mut self, segments: Vec<String>) {
        self.found.push(segments);
        self.found_in.push(self.inline.clone());
    }

    fn use_tree(&mut self, prefix: &mut Vec<String>, tree: &syn::UseTree) {
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                self.use_tree(prefix, &p.tree);
                prefix.pop();
            }
            syn::UseTree::Name(n) => {
                let mut s = prefix.clone();
                if n.ident != "self" {
                    s.push(n.ident.to_string());
                }
                self.push(s);
            }
            syn::UseTree::Rename(r) => {
                let mut s = prefix.clone();
                s.push(r.ident.to_string());
                self.push(s);
            }
            syn::UseTree::Glob(_) => self.push(prefix.clone()),
            syn::UseTree::Group(g) => g.items.iter().for_each(|t| self.use_tree(prefix, t)),
        }
    }
}

impl<'ast> Visit<'ast> for Paths {
    fn visit_item(&mut self, item: &'ast syn::Item) {
        let attrs = match item {
            syn::Item::Mod(m) => &m.attrs,
            syn::Item::Fn(f) => &f.attrs,
            syn::Item::Impl(i) => &i.attrs,
            syn::Item::Use(u) => &u.attrs,
            syn::Item::Const(c) => &c.attrs,
            syn::Item::Static(s) => &s.attrs,
            syn::Item::Struct(s) => &s.attrs,
            syn::Item::Enum(e) => &e.attrs,
            syn::Item::Macro(m) => &m.attrs,
            _ => &vec![],
        };
        if is_test(attrs) {
            return;
        }
        if let syn::Item::Mod(m) = item {
            if m.content.is_some() {
                self.inline.push(m.ident.to_string());
                syn::visit::visit_item(self, item);
                self.inline.pop();
            }
            return;
        }
        syn::visit::visit_item(self, item);
    }

    fn visit_visibility(&mut self, _: &'ast syn::Visibility) {
        // `pub(in crate::transport)` says who may see an item, not what the file uses
    }

    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        self.use_tree(&mut vec![], &u.tree);
    }

    fn visit_path(&mut self, p: &'ast syn::Path) {
        if p.segments.len() > 1 {
            self.push(p.segments.iter().map(|s| s.ident.to_string()).collect());
        }
        syn::visit::visit_path(self, p);
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        // paths inside macro calls (`matches!(x, crate::y::Z)`) are tokens, not parsed paths:
        // read `a::b::c` runs of identifiers out of them
        let mut run: Vec<String> = vec![];
        let mut colons = 0;
        for token in m.tokens.clone() {
            match token {
                proc_macro2::TokenTree::Ident(i) if colons == 2 || run.is_empty() => {
                    if colons != 2 && !run.is_empty() {
                        run.clear();
                    }
                    run.push(i.to_string());
                    colons = 0;
                }
                proc_macro2::TokenTree::Punct(p) if p.as_char() == ':' && !run.is_empty() => colons += 1,
                _ => {
                    if run.len() > 1 {
                        self.push(std::mem::take(&mut run));
                    }
                    run.clear();
                    colons = 0;
                }
            }
        }
        if run.len() > 1 {
            self.push(run);
        }
        syn::visit::visit_macro(self, m);
    }
}

/// The module a path written in `module` (inside its inline modules `inline`) names, as far as
/// it runs through modules; `None` for paths into other crates or local names.
fn resolve(module: &Module, inline: &[String], path: &[String], modules: &BTreeSet<Module>) -> Option<Module> {
    let mut at: Module = module.iter().chain(inline).cloned().collect();
    let mut rest = path;
    match path.first().map(String::as_str) {
        Some("crate") => {
            at.clear();
            rest = &path[1..];
        }
        Some("self") => rest = &path[1..],
        Some("super") => {
            while rest.first().map(String::as_str) == Some("super") {
                at.pop()?;
                rest = &rest[1..];
            }
        }
        Some(first) => {
            // a child module of this one, named without `self::`
            let mut child = at.clone();
            child.push(first.to_string());
            if !modules.contains(&child) {
                return None;
            }
        }
        None => return None,
    }
    // the longest prefix that is a module file
    for segment in rest {
        let mut next = at.clone();
        next.push(segment.clone());
        if modules.contains(&next) {
            at = next;
        } else {
            break;
        }
    }
    Some(at)
}

/// Every file's uses of other files: module → the modules it uses (itself left out).
fn uses(sources: &[Source]) -> BTreeMap<Module, BTreeSet<Module>> {
    let modules: BTreeSet<Module> = sources.iter().map(|s| s.module.clone()).collect();
    let mut graph = BTreeMap::new();
    for s in sources {
        let mut paths = Paths::default();
        paths.visit_file(&s.ast);
        let mut used = BTreeSet::new();
        for (path, inline) in paths.found.iter().zip(&paths.found_in) {
            if let Some(m) = resolve(&s.module, inline, path, &modules) {
                if m != s.module && !m.is_empty() {
                    used.insert(m);
                }
            }
        }
        graph.insert(s.module.clone(), used);
    }
    graph
}

fn shown(m: &Module) -> String {
    format!("crate::{}", m.join("::"))
}

fn layer_of(layers: &[&[&str]], name: &str) -> Option<usize> {
    layers.iter().position(|l| l.contains(&name))
}

#[test]
fn no_module_uses_a_layer_above_its_own() {
    let sources = sources();
    let graph = uses(&sources);
    let mut wrong = vec![];
    let mut checked = 0;
    for (module, used) in &graph {
        let Some(top) = module.first() else { continue };
        let own = layer_of(LAYERS, top).unwrap_or_else(|| panic!("module `{top}` is in no layer: add it to LAYERS"));
        for u in used {
            if &u[0] == top {
                continue;
            }
            checked += 1;
            let theirs = layer_of(LAYERS, &u[0]).unwrap_or_else(|| panic!("module `{}` is in no layer", u[0]));
            if theirs >= own {
                wrong.push(format!("{} (layer {own}) uses {} (layer {theirs})", shown(module), shown(u)));
            }
        }
    }
    assert!(checked > 100, "the scan found only {checked} uses: is it reading the sources?");
    assert!(wrong.is_empty(), "uses that run up or across the layers:\n{}", wrong.join("\n"));
}

/// The layer of a file of `transport/`: its folder's, or the ground floor's.
fn transport_layer(module: &Module) -> usize {
    let place = match module.len() {
        1 => "mod",
        2 => "",
        _ => module[1].as_str(),
    };
    layer_of(TRANSPORT_LAYERS, place).unwrap_or_else(|| panic!("{}: add its folder to TRANSPORT_LAYERS", shown(module)))
}

#[test]
fn inside_transport_each_folder_uses_only_those_below_it() {
    let graph = uses(&sources());
    let mut wrong = vec![];
    for (module, used) in graph.iter().filter(|(m, _)| m.first().is_some_and(|t| t == "transport")) {
        let own = transport_layer(module);
        for u in used.iter().filter(|u| u[0] == "transport") {
            let theirs = transport_layer(u);
            let same_folder = module.len() > 2 && u.len() > 2 && module[1] == u[1];
            if theirs > own || (theirs == own && !same_folder && own != 0) {
                wrong.push(format!("{} uses {}", shown(module), shown(u)));
            }
        }
    }
    assert!(wrong.is_empty(), "transport/ folders used from below or across:\n{}", wrong.join("\n"));
}

#[test]
fn no_file_reaches_back_to_itself() {
    let graph = uses(&sources());
    // depth-first search; a back edge closes a loop, shown as the chain of files
    let mut state: BTreeMap<&Module, u8> = BTreeMap::new(); // 1: on the stack, 2: done
    let mut loops = vec![];
    fn dfs<'a>(
        m: &'a Module,
        graph: &'a BTreeMap<Module, BTreeSet<Module>>,
        state: &mut BTreeMap<&'a Module, u8>,
        stack: &mut Vec<&'a Module>,
        loops: &mut Vec<String>,
    ) {
        state.insert(m, 1);
        stack.push(m);
        for u in graph.get(m).into_iter().flatten() {
            match state.get(u) {
                Some(1) => {
                    let from = stack.iter().position(|s| *s == u).unwrap();
                    let chain: Vec<String> = stack[from..].iter().chain([&u]).map(|m| shown(m)).collect();
                    loops.push(chain.join(" -> "));
                }
                Some(_) => {}
                None => dfs(u, graph, state, stack, loops),
            }
        }
        stack.pop();
        state.insert(m, 2);
    }
    for m in graph.keys() {
        if !state.contains_key(m) {
            dfs(m, &graph, &mut state, &mut vec![], &mut loops);
        }
    }
    assert!(loops.is_empty(), "{} loops of files:\n{}", loops.len(), loops.join("\n"));
}

#[test]
fn the_scan_sees_grouped_uses_super_paths_and_paths_in_code() {
    let file: syn::File = syn::parse_str(
        "use crate::{net::Packet, qdisc::{self, Qdisc}};\nuse super::sibling::Thing;\n\
         fn f() { crate::rng::stream(1, \"x\"); matches!(k, crate::timer::TimerId::Rto); }\n\
         #[cfg(test)] mod tests { use crate::engine::Simulation; }",
    )
    .unwrap();
    let mut paths = Paths::default();
    paths.visit_file(&file);
    let modules: BTreeSet<Module> = [
        vec!["net"],
        vec!["qdisc"],
        vec!["rng"],
        vec!["timer"],
        vec!["engine"],
        vec!["transport"],
        vec!["transport", "sibling"],
        vec!["transport", "me"],
    ]
    .into_iter()
    .map(|m| m.into_iter().map(String::from).collect())
    .collect();
    let me: Module = vec!["transport".into(), "me".into()];
    let found: BTreeSet<String> = paths
        .found
        .iter()
        .zip(&paths.found_in)
        .filter_map(|(p, i)| resolve(&me, i, p, &modules))
        .map(|m| shown(&m))
        .collect();
    let expected: BTreeSet<String> =
        ["crate::net", "crate::qdisc", "crate::transport::sibling", "crate::rng", "crate::timer"]
            .into_iter()
            .map(String::from)
            .collect();
    assert_eq!(found, expected, "test code (crate::engine) is left out");
}
