//! The crate's files depend one way: no import circle between modules. Edges are the paths a
//! file names (`crate::a::b`, `super::x`, `self::x`, or a child module), resolved to the
//! deepest module file that exists; an edge between a module and its own submodules (a
//! `mod.rs` facade and the files under it) is the module's inside, not a dependency between
//! modules, and is left out.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

type ModulePath = Vec<String>;

/// Every `.rs` file under `dir` with its module path (`src/training/train.rs`: `training::train`).
fn modules(src: &Path, dir: &Path, found: &mut BTreeMap<ModulePath, PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("src/ is readable") {
        let path = entry.expect("src/ is readable").path();
        if path.is_dir() {
            modules(src, &path, found);
            continue;
        }
        if path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let relative = path.strip_prefix(src).expect("under src/");
        let mut parts: ModulePath = relative
            .iter()
            .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_string())
            .collect();
        if matches!(
            parts.last().map(String::as_str),
            Some("mod" | "lib" | "main")
        ) {
            parts.pop();
        }
        if relative == Path::new("main.rs") {
            continue;
        }
        found.insert(parts, path);
    }
}

/// The paths a source text names: `use` trees with one level of braces expanded, and inline
/// `crate::`/`super::` paths.
fn named_paths(text: &str) -> Vec<Vec<String>> {
    let code: String = text
        .lines()
        .map(|line| line.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n");
    let mut paths = Vec::new();
    for statement in code.split(';') {
        let statement = statement.trim();
        let starts = statement.match_indices("use ").filter(|(i, _)| {
            statement[..*i]
                .chars()
                .last()
                .is_none_or(|c| c.is_whitespace() || c == '{' || c == '}')
        });
        let Some((start, _)) = starts.last() else {
            continue;
        };
        let tree = &statement[start + 4..];
        let tree: String = tree.split_whitespace().collect();
        match tree.split_once('{') {
            Some((prefix, rest)) => {
                for item in rest.trim_end_matches('}').split(',') {
                    let item = item.split('{').next().unwrap_or("");
                    paths.push(split_path(&format!("{prefix}{item}")));
                }
            }
            None => paths.push(split_path(&tree)),
        }
    }
    for start in ["crate::", "super::"] {
        for (i, _) in code.match_indices(start) {
            let rest = &code[i..];
            let end = rest
                .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                .unwrap_or(rest.len());
            paths.push(split_path(&rest[..end]));
        }
    }
    paths
}

fn split_path(path: &str) -> Vec<String> {
    path.split("::")
        .filter(|s| !s.is_empty())
        .map(|s| s.split(" as ").next().unwrap_or(s).to_string())
        .collect()
}

/// The module file a path named in `from` leads to, if it is one of the crate's.
fn resolve(
    from: &ModulePath,
    path: &[String],
    known: &BTreeMap<ModulePath, PathBuf>,
) -> Option<ModulePath> {
    let here = from.clone();
    let mut base: ModulePath;
    let mut rest = path;
    match path.first().map(String::as_str) {
        Some("crate") => {
            base = Vec::new();
            rest = &path[1..];
        }
        Some("self") => {
            base = here;
            rest = &path[1..];
        }
        Some("super") => {
            base = here;
            while rest.first().is_some_and(|s| s == "super") {
                base.pop();
                rest = &rest[1..];
            }
        }
        Some(_) => {
            base = here;
        }
        None => return None,
    }
    let mut best = None;
    for segment in rest {
        base.push(segment.clone());
        if known.contains_key(&base) {
            best = Some(base.clone());
        } else {
            break;
        }
    }
    best
}

fn is_within(inner: &ModulePath, outer: &ModulePath) -> bool {
    inner.starts_with(outer)
}

/// The crate's dependency graph between module files.
fn graph() -> BTreeMap<ModulePath, BTreeSet<ModulePath>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut known = BTreeMap::new();
    modules(&src, &src, &mut known);
    let mut edges = BTreeMap::new();
    for (module, file) in &known {
        let text = std::fs::read_to_string(file).expect("a source file is readable");
        let targets: BTreeSet<ModulePath> = named_paths(&text)
            .iter()
            .filter_map(|path| resolve(module, path, &known))
            .filter(|target| !is_within(target, module) && !is_within(module, target))
            .collect();
        edges.insert(module.clone(), targets);
    }
    edges
}

/// The circles of a graph: its strongly connected components of more than one node.
fn circles(edges: &BTreeMap<ModulePath, BTreeSet<ModulePath>>) -> Vec<Vec<ModulePath>> {
    let nodes: Vec<&ModulePath> = edges.keys().collect();
    let reaches = |from: &ModulePath| {
        let mut seen = BTreeSet::new();
        let mut stack = vec![from.clone()];
        while let Some(node) = stack.pop() {
            for next in edges.get(&node).into_iter().flatten() {
                if seen.insert(next.clone()) {
                    stack.push(next.clone());
                }
            }
        }
        seen
    };
    let reach: BTreeMap<&ModulePath, BTreeSet<ModulePath>> =
        nodes.iter().map(|n| (*n, reaches(n))).collect();
    let mut found: Vec<Vec<ModulePath>> = Vec::new();
    for node in &nodes {
        let circle: Vec<ModulePath> = nodes
            .iter()
            .filter(|other| reach[node].contains(**other) && reach[**other].contains(*node))
            .map(|other| (*other).clone())
            .collect();
        if circle.len() > 1 && !found.contains(&circle) {
            found.push(circle);
        }
    }
    found
}

#[test]
fn the_crate_has_no_import_circle() {
    let edges = graph();
    let engine = edges
        .get(&vec!["engine".to_string()])
        .expect("the engine module is found");
    assert!(
        engine.contains(&vec!["book".to_string(), "learn".to_string()]),
        "the graph sees the engine's use of book::learn: {engine:?}"
    );
    let found = circles(&edges);
    let names: Vec<String> = found
        .iter()
        .map(|circle| {
            circle
                .iter()
                .map(|m| m.join("::"))
                .collect::<Vec<_>>()
                .join(" <-> ")
        })
        .collect();
    assert!(names.is_empty(), "import circles: {names:#?}");
}

#[test]
fn a_circle_is_found() {
    let module = |name: &str| vec![name.to_string()];
    let mut edges = BTreeMap::new();
    edges.insert(module("a"), BTreeSet::from([module("b")]));
    edges.insert(module("b"), BTreeSet::from([module("c")]));
    edges.insert(module("c"), BTreeSet::from([module("a")]));
    edges.insert(module("d"), BTreeSet::from([module("a")]));
    assert_eq!(circles(&edges), [[module("a"), module("b"), module("c")]]);
}

#[test]
fn paths_resolve_to_the_deepest_module_file() {
    let text = "use super::dataset::{label_floor, Example};\nuse crate::search::{level_depth, Limits};\nlet x = crate::book::learn::LEARN_PLIES;";
    let known: BTreeMap<ModulePath, PathBuf> = [
        vec!["tools"],
        vec!["tools", "dataset"],
        vec!["tools", "train"],
        vec!["search"],
        vec!["book"],
        vec!["book", "learn"],
    ]
    .into_iter()
    .map(|m| (m.iter().map(|s| s.to_string()).collect(), PathBuf::new()))
    .collect();
    let from: ModulePath = vec!["tools".into(), "train".into()];
    let resolved: BTreeSet<ModulePath> = named_paths(text)
        .iter()
        .filter_map(|p| resolve(&from, p, &known))
        .collect();
    let expected: BTreeSet<ModulePath> = [
        vec!["tools", "dataset"],
        vec!["search"],
        vec!["book", "learn"],
    ]
    .into_iter()
    .map(|m| m.iter().map(|s| s.to_string()).collect())
    .collect();
    assert_eq!(resolved, expected);
}
