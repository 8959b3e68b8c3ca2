//! One shape for every pluggable component — queueing discipline, transport, application.
//!
//! Each component declares itself at the bottom of its own file (as a Linux discipline declares
//! its `Qdisc_ops`): a `Declaration` with its name, one line of description, its citation, its
//! typed configuration's defaults, and how to build it. A variant of a component (FQbit is FQ
//! with a marking threshold, JK is Reno's window law with a window of 5 and no fast recovery) is
//! another declaration with other typed defaults. Registries only list declarations, as
//! `&dyn Kind`.
//!
//! The configuration documents itself: its fields' doc comments (read through `schemars`) and
//! the declaration's defaults make the parameter tables of `fairsim list` and of
//! docs/scenario-format.md, so the docs cannot drift from the code. A component made of parts
//! (a window transport: its reliability layer and its controller) has one configuration per
//! part, read from one table (`params::split`).

use crate::params::{fields, parse_over, split, to_params, ParamError, Params};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::Serialize;

/// What a component says about itself in listings and docs.
#[derive(Copy, Clone, Debug)]
pub struct About {
    pub name: &'static str,
    /// One line: what it does.
    pub summary: &'static str,
    /// The paper or RFC it implements.
    pub reference: &'static str,
}

/// One parameter, as listings and docs show it.
#[derive(Clone, Debug, PartialEq)]
pub struct ParamDoc {
    pub name: String,
    /// The default as written in a scenario; `None` when there is none (unbounded, required).
    pub default: Option<String>,
    pub doc: String,
}

/// A part's typed configuration: serde defaults and `deny_unknown_fields`, doc comments on
/// every field.
pub trait Config: DeserializeOwned + Serialize + JsonSchema + Clone + Send + Sync + 'static {}
impl<T: DeserializeOwned + Serialize + JsonSchema + Clone + Send + Sync + 'static> Config for T {}

/// The configuration of a component: a tuple of one or more parts, each taking its own keys of
/// the component's table.
pub trait Parts: Clone + Send + Sync + 'static {
    /// Reads `params` over `defaults`.
    fn parse(defaults: &Self, params: &Params) -> Result<Self, ParamError>;
    /// Every parameter with its value: the resolved form written beside results.
    fn resolved(&self) -> Params;
    /// Every parameter's documentation, with `self`'s values as defaults.
    fn docs(&self) -> Vec<ParamDoc>;
    /// Every parameter's name (cheap: serde's own lists).
    fn names() -> Vec<&'static str>;
}

macro_rules! parts {
    ($($part:ident . $i:tt),+) => {
        impl<$($part: Config),+> Parts for ($($part,)+) {
            fn parse(defaults: &Self, params: &Params) -> Result<Self, ParamError> {
                let tables = split(params, &[$(fields::<$part>()),+])?;
                Ok(($(parse_over(&defaults.$i, &tables[$i])?.0,)+))
            }
            fn resolved(&self) -> Params {
                let mut all = Params::new();
                $(all.extend(to_params(&self.$i));)+
                all
            }
            fn docs(&self) -> Vec<ParamDoc> {
                let mut all = vec![];
                $(all.extend(part_docs(&self.$i));)+
                all
            }
            fn names() -> Vec<&'static str> {
                [$(fields::<$part>()),+].concat()
            }
        }
    };
}
parts!(A.0);
parts!(A.0, B.1);
parts!(A.0, B.1, C.2);

/// The documentation of one part's fields, in declaration order.
fn part_docs<C: Config>(defaults: &C) -> Vec<ParamDoc> {
    let schema = schemars::schema_for!(C);
    let values = to_params(defaults);
    let properties = schema.get("properties").and_then(|p| p.as_object());
    fields::<C>()
        .iter()
        .map(|&name| {
            let property = properties.and_then(|p| p.get(name));
            let doc = property.and_then(|p| description(p, schema.get("$defs"))).unwrap_or("");
            let mut doc = doc.split_whitespace().collect::<Vec<_>>().join(" ");
            let mut choices = vec![];
            if let Some(p) = property {
                collect_choices(p, schema.get("$defs"), &mut choices);
            }
            if !choices.is_empty() {
                let listed: Vec<String> = choices.iter().map(|c| format!("`{c}`")).collect();
                doc = format!("{doc} One of {}.", listed.join(", ")).trim_start().to_string();
            }
            ParamDoc { name: name.to_string(), default: values.get(name).map(shown), doc }
        })
        .collect()
}

/// A parameter's description, or else its type's (a shared type such as `ConversationKey`
/// documents itself once).
fn description<'a>(schema: &'a serde_json::Value, defs: Option<&'a serde_json::Value>) -> Option<&'a str> {
    if let Some(d) = schema.get("description").and_then(|d| d.as_str()) {
        return Some(d);
    }
    let name = schema.get("$ref")?.as_str()?.strip_prefix("#/$defs/")?;
    defs?.get(name)?.get("description")?.as_str()
}

/// The values an enumerated parameter may take, following references and alternatives.
fn collect_choices(schema: &serde_json::Value, defs: Option<&serde_json::Value>, out: &mut Vec<String>) {
    if let Some(name) = schema.get("$ref").and_then(|r| r.as_str()).and_then(|r| r.strip_prefix("#/$defs/")) {
        if let Some(def) = defs.and_then(|d| d.get(name)) {
            collect_choices(def, defs, out);
        }
    }
    if let Some(c) = schema.get("const").and_then(|c| c.as_str()) {
        out.push(c.to_string());
    }
    for key in ["enum", "oneOf", "anyOf"] {
        for item in schema.get(key).and_then(|v| v.as_array()).into_iter().flatten() {
            match item.as_str() {
                Some(value) => out.push(value.to_string()),
                None => collect_choices(item, defs, out),
            }
        }
    }
}

/// A value as it is written in a scenario file.
fn shown(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// A component declared in its own file: `Ctx` is what it is built for (a port, a flow), `Out`
/// what it becomes (`dyn Qdisc`, `dyn Sender`).
pub struct Declaration<P, Ctx: ?Sized, Out: ?Sized> {
    pub about: About,
    /// The typed defaults of every part.
    pub defaults: fn() -> P,
    /// Checks the configuration and builds the component; it may fill in defaults that depend
    /// on `Ctx` (CSFQ's averaging constants depend on the port), which the resolved form shows.
    pub build: fn(&mut P, &Ctx) -> Result<Box<Out>, ParamError>,
}

/// A component's parameters read once, building one component per call: the transports of an
/// open population's connections, one per arrival, without reading a table each time.
pub type Builder<Ctx, Out> = Box<dyn Fn(&Ctx) -> Result<Box<Out>, ParamError> + Send + Sync>;

/// A declaration as registries hold it, its configuration's type erased.
pub trait Kind<Ctx: ?Sized, Out: ?Sized>: Sync {
    fn about(&self) -> About;
    fn parameters(&self) -> Vec<ParamDoc>;
    /// Every parameter's name, without their documentation.
    fn parameter_names(&self) -> Vec<&'static str>;
    /// Builds the component from a scenario's parameters; returns it with every parameter
    /// resolved.
    fn build(&self, params: &Params, ctx: &Ctx) -> Result<(Box<Out>, Params), ParamError>;
    /// Reads the parameters once; the builder returned builds from them.
    fn builder(&self, params: &Params) -> Result<Builder<Ctx, Out>, ParamError>
    where
        Ctx: 'static,
        Out: 'static;
}

impl<P: Parts, Ctx: ?Sized, Out: ?Sized> Kind<Ctx, Out> for Declaration<P, Ctx, Out> {
    fn about(&self) -> About {
        self.about
    }

    fn parameters(&self) -> Vec<ParamDoc> {
        (self.defaults)().docs()
    }

    fn parameter_names(&self) -> Vec<&'static str> {
        P::names()
    }

    fn build(&self, params: &Params, ctx: &Ctx) -> Result<(Box<Out>, Params), ParamError> {
        let mut config = P::parse(&(self.defaults)(), params)?;
        let built = (self.build)(&mut config, ctx)?;
        Ok((built, config.resolved()))
    }

    fn builder(&self, params: &Params) -> Result<Builder<Ctx, Out>, ParamError>
    where
        Ctx: 'static,
        Out: 'static,
    {
        let config = P::parse(&(self.defaults)(), params)?;
        let build = self.build;
        Ok(Box::new(move |ctx: &Ctx| build(&mut config.clone(), ctx)))
    }
}

/// The declaration called `name` in a registry.
pub fn find<'a, Ctx: ?Sized, Out: ?Sized>(
    registry: &'a [&'a dyn Kind<Ctx, Out>],
    name: &str,
) -> Option<&'a dyn Kind<Ctx, Out>> {
    registry.iter().copied().find(|k| k.about().name == name)
}

/// The names in a registry, in order.
pub fn names<Ctx: ?Sized, Out: ?Sized>(registry: &[&dyn Kind<Ctx, Out>]) -> Vec<&'static str> {
    registry.iter().map(|k| k.about().name).collect()
}

/// What a registry leaves undocumented: components without a summary or a reference, and
/// parameters without a description (the docs generated from them would have holes).
pub fn undocumented<Ctx: ?Sized, Out: ?Sized>(registry: &[&dyn Kind<Ctx, Out>]) -> Vec<String> {
    let mut holes = vec![];
    for kind in registry {
        let about = kind.about();
        if about.summary.is_empty() || about.reference.is_empty() {
            holes.push(about.name.to_string());
        }
        for p in kind.parameters() {
            if p.doc.is_empty() || p.doc.starts_with("One of") {
                holes.push(format!("{}.{}", about.name, p.name));
            }
        }
    }
    holes
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    /// A line.
    #[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
    #[serde(deny_unknown_fields, default)]
    struct Line {
        /// Bits per second.
        rate: u32,
        /// How long a bit takes to cross it,
        /// seconds.
        delay: f64,
    }

    /// A queue.
    #[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
    #[serde(deny_unknown_fields, default)]
    struct Queue {
        /// Packets; unlimited when absent.
        limit: Option<u32>,
        /// Which packet goes.
        drop: Option<Drop>,
    }

    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
    #[serde(rename_all = "snake_case")]
    enum Drop {
        Tail,
        /// The head of the queue.
        Head,
    }

    static PORT: Declaration<(Line, Queue), u32, String> = Declaration {
        about: About { name: "port", summary: "a port", reference: "none" },
        defaults: || (Line { rate: 8, delay: 0.5 }, Queue::default()),
        build: |(line, _), scale| {
            line.rate *= scale;
            Ok(Box::new(format!("{} b/s", line.rate)))
        },
    };

    #[test]
    fn a_declaration_builds_from_one_table_over_its_typed_defaults() {
        let kind: &dyn Kind<u32, String> = &PORT;
        let (built, resolved) = kind.build(&"limit = 3".parse().unwrap(), &10).unwrap();
        assert_eq!(*built, "80 b/s");
        assert_eq!(resolved, "rate = 80\ndelay = 0.5\nlimit = 3".parse().unwrap(), "as built, in part order");
        let e = kind.build(&"rat = 3".parse().unwrap(), &1).unwrap_err();
        assert_eq!(e.message, "unknown field `rat`, expected one of `rate`, `delay`, `limit`, `drop`");
        let e = kind.build(&"limit = -1".parse().unwrap(), &1).unwrap_err();
        assert_eq!(e.path, vec!["limit"]);
    }

    #[test]
    fn parameters_document_themselves_from_doc_comments_and_defaults() {
        let docs = PORT.parameters();
        let row = |name: &str, default: Option<&str>, doc: &str| ParamDoc {
            name: name.into(),
            default: default.map(Into::into),
            doc: doc.into(),
        };
        assert_eq!(
            docs,
            vec![
                row("rate", Some("8"), "Bits per second."),
                row("delay", Some("0.5"), "How long a bit takes to cross it, seconds."),
                row("limit", None, "Packets; unlimited when absent."),
                row("drop", None, "Which packet goes. One of `tail`, `head`."),
            ]
        );
        let registry: &[&dyn Kind<u32, String>] = &[&PORT];
        assert_eq!(names(registry), vec!["port"]);
        assert_eq!(undocumented(registry), Vec::<String>::new());
        static BARE: Declaration<(Queue,), u32, String> = Declaration {
            about: About { name: "bare", summary: "", reference: "none" },
            defaults: || (Queue::default(),),
            build: |_, _| Ok(Box::new(String::new())),
        };
        assert!(find(registry, "port").is_some() && find(registry, "queue").is_none());
        let registry: &[&dyn Kind<u32, String>] = &[&BARE];
        assert_eq!(undocumented(registry), vec!["bare"]);
    }
}
