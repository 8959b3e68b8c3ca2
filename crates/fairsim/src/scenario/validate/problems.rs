//! The problems validation collects, each with the path of the field it is about.

use crate::scenario::problem::Problem;
use crate::scenario::schema::Component;

#[derive(Default)]
pub(super) struct Problems(pub(super) Vec<Problem>);

impl Problems {
    pub(super) fn add(&mut self, path: &[&str], message: impl Into<String>) {
        self.0.push(Problem::new(path, message));
    }
}

pub(super) fn with_path(mut c: Component, path: &[&str]) -> Component {
    c.path = path.iter().map(|s| s.to_string()).collect();
    c
}
