//! Every registry of components (disciplines, transports, applications): names are unique, so
//! a scenario's `kind` finds one component; and no parameter is declared by two parts of one
//! component (a window transport's reliability layer and its controller), which would leave
//! one part never reading a key the user sets (`params::split` gives a key to the first part
//! that declares it).

use fairsim::component::{names, Kind};
use std::collections::BTreeMap;

fn duplicates<'a>(items: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    let mut seen = BTreeMap::new();
    for i in items {
        *seen.entry(i).or_insert(0) += 1;
    }
    seen.into_iter().filter(|(_, n)| *n > 1).map(|(i, _)| i).collect()
}

fn check<Ctx: ?Sized, Out: ?Sized>(what: &str, registry: &[&dyn Kind<Ctx, Out>]) -> Vec<String> {
    let mut wrong: Vec<String> =
        duplicates(names(registry)).into_iter().map(|n| format!("two {what}s are called `{n}`")).collect();
    for kind in registry {
        for key in duplicates(kind.parameter_names()) {
            wrong.push(format!("{what} `{}`: two parts declare `{key}`", kind.about().name));
        }
    }
    wrong
}

#[test]
fn names_are_unique_and_no_key_is_declared_twice() {
    let mut wrong = check("discipline", fairsim::qdisc::QDISCS);
    wrong.extend(check("transport", fairsim::transport::TRANSPORTS));
    wrong.extend(check("application", fairsim::traffic::APPS));
    assert!(fairsim::transport::TRANSPORTS.len() > 10 && fairsim::traffic::APPS.len() > 7, "the registries are read");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn the_check_finds_a_key_declared_twice() {
    assert_eq!(duplicates(["window", "sack", "window"]), vec!["window"]);
    assert!(duplicates(["a", "b"]).is_empty());
}
