//! A run report's long tables (its flows, queues and their per-interval rows) as Arrow record
//! batches, so that Python holds them as columns instead of as a dictionary per row: at a
//! k = 64 fat-tree's 393,216 queues the dictionaries took a gigabyte (docs/performance.md,
//! "The report as columns").
//!
//! Each row is serialised as the JSON report writes it, and its top-level fields are read back
//! in their order: integers, floats, strings and booleans become typed columns. A nested value
//! is a record column (Arrow's struct: a typed column per key, which Python reads back as a
//! dict) where every row's value is an object of the same keys, in the same order, each of one
//! kind of number or flag (a summary, a flow's counters), and where that is smaller than its
//! texts held once each; otherwise it stays as its JSON text in a dictionary-encoded column,
//! marked `json` in the field's metadata, which Python decodes as it reads the row
//! (`fairsim.columns`): a discipline's parameters, or the zero counters that idle ports share.
//! A row read from the columns is therefore the JSON report's row, key for key and value for
//! value. The rows are made twice: once to survey the columns' shapes (an even sample of at most
//! about 4,096 rows), once to fill them; a record column that meets a row the survey did not
//! foresee keeps its values as texts from there on.
//!
//! A table whose rows do not all have the same fields in the same order cannot be laid out so;
//! it is an error, and the caller falls back to the JSON report.

use arrow_array::builder::{BooleanBuilder, Float64Builder, Int64Builder, StringDictionaryBuilder};
use arrow_array::types::Int32Type;
use arrow_array::{ArrayRef, DictionaryArray, NullArray, RecordBatch, RecordBatchOptions, StringArray, StructArray};
use arrow_buffer::{NullBuffer, NullBufferBuilder};
use arrow_schema::{DataType, Field, Fields, Schema};
use serde::de::{Deserializer, MapAccess, Visitor};
use serde::Serialize;
use serde_json::value::RawValue;
use std::collections::HashMap;
use std::collections::HashSet;
use std::hash::{BuildHasher, BuildHasherDefault, DefaultHasher};
use std::sync::Arc;

/// The metadata key and value that mark a column of JSON texts.
pub const ENCODING: (&str, &str) = ("fairsim", "json");

/// A report's long tables as they cross into Python: Arrow columns, and (a short table, or one
/// that cannot be laid out so) the JSON text of its rows, as the JSON report writes them.
#[derive(Default)]
pub struct Taken {
    pub batches: Vec<(&'static str, RecordBatch)>,
    pub texts: Vec<(&'static str, String)>,
}

/// The table called `name`, of `rows` rows that `make` makes a row at a time, into `taken`: as
/// a batch if they are at least `min_rows` and can be laid out as columns, otherwise as their
/// JSON text, written a row at a time, so that the rows are never held all at once beside the
/// run (a 256-flow dumbbell's were 4 MB, the top of its report's peak).
pub fn take<T: Serialize, I: Iterator<Item = T>>(
    taken: &mut Taken,
    (name, rows, min_rows): (&'static str, usize, usize),
    make: impl Fn() -> I,
) {
    if rows >= min_rows {
        if let Ok(batch) = table(&make, rows) {
            taken.batches.push((name, batch));
            return;
        }
    }
    taken.texts.push((name, json_rows(make(), rows)));
}

/// `rows` rows as a JSON array, byte for byte what `serde_json` writes for a `Vec` of them. The
/// text is given room for all of them once the first is written (its length times the rows, and
/// an eighth more), not grown by doubling, whose copies held up to three times the text beside
/// the run (the k = 8 HPCC permutation's 556 kB of queues); room never written is not resident.
fn json_rows<T: Serialize>(made: impl Iterator<Item = T>, rows: usize) -> String {
    let mut text = vec![b'['];
    for (n, row) in made.enumerate() {
        if n > 0 {
            text.push(b',');
        }
        serde_json::to_writer(&mut text, &row).expect("report rows serialise");
        if n == 0 {
            text.reserve(text.len() * rows.saturating_sub(1) * 9 / 8);
        }
    }
    text.push(b']');
    String::from_utf8(text).expect("serde_json writes UTF-8")
}

/// Rows surveyed for their columns' layout, at most (about): an even sample of a longer table.
const SURVEYED: usize = 4096;

/// The rows that `make` makes (twice: a survey of the columns' shapes, then their values) as one
/// record batch; an error says why they cannot be. `expected` is how many rows there will be:
/// each column is made that long at once, as Arrow will hold it (8 bytes a number), rather than
/// grown by doubling, which at a 100,000-flow run's 400,000 interval rows of a few dozen columns
/// held about twice the final columns while the last table was made (docs/performance.md,
/// "Memory at 100,000 flows"). A wrong count costs only growth.
pub fn table<T: Serialize, I: IntoIterator<Item = T>>(
    make: impl Fn() -> I,
    expected: usize,
) -> Result<RecordBatch, String> {
    let mut shapes: Vec<Shape> = vec![];
    // the survey reads an even sample of the rows: the layout it chooses is checked row by row
    // as the columns are filled, and a column whose rows turn out otherwise keeps texts
    let stride = (expected / SURVEYED).max(1);
    let sample = make().into_iter().step_by(stride);
    let names = each_row(sample, |n, fields| {
        if n == 0 {
            shapes = fields.iter().map(|_| Shape::default()).collect();
        }
        for ((_, value), shape) in fields.iter().zip(shapes.iter_mut()) {
            shape.see(value.get());
        }
        Ok(())
    })?;
    let mut columns: Vec<Cells> = shapes.into_iter().map(|shape| shape.cells(expected)).collect();
    let mut count = 0;
    each_row(make(), |n, fields| {
        count = n + 1;
        let columns = columns.get_mut(..fields.len()).ok_or("the rows changed between their makings")?;
        fields.iter().zip(columns.iter_mut()).try_for_each(|((_, value), cells)| cells.push(value.get(), expected))
    })?;
    let fields: Vec<Field> = names
        .iter()
        .zip(&columns)
        .map(|(name, cells)| {
            let field = Field::new(name, cells.data_type(), true);
            if matches!(cells, Cells::Json(_)) {
                field.with_metadata(HashMap::from([(ENCODING.0.to_string(), ENCODING.1.to_string())]))
            } else {
                field
            }
        })
        .collect();
    let arrays: Vec<ArrayRef> = columns.into_iter().map(Cells::into_array).collect::<Result<_, _>>()?;
    let options = RecordBatchOptions::new().with_row_count(Some(count));
    RecordBatch::try_new_with_options(Arc::new(Schema::new(fields)), arrays, &options).map_err(|e| e.to_string())
}

/// Calls `each` with every row's number and fields, in order, once they are checked to be row 0's;
/// returns those fields' names.
fn each_row<T: Serialize>(
    rows: impl IntoIterator<Item = T>,
    mut each: impl FnMut(usize, &[(String, &RawValue)]) -> Result<(), String>,
) -> Result<Vec<String>, String> {
    let mut names: Vec<String> = vec![];
    let mut bytes = vec![];
    for (n, row) in rows.into_iter().enumerate() {
        bytes.clear();
        serde_json::to_writer(&mut bytes, &row).map_err(|e| e.to_string())?;
        let fields = fields_of(std::str::from_utf8(&bytes).map_err(|e| e.to_string())?)?;
        if n == 0 {
            names = fields.iter().map(|(k, _)| k.clone()).collect();
        } else if !same_keys(&fields, &names) {
            return Err(format!("row {n} has other fields than row 0"));
        }
        each(n, &fields)?;
    }
    Ok(names)
}

/// Whether an object's `fields` are `keys`, in that order.
fn same_keys(fields: &[(String, &RawValue)], keys: &[String]) -> bool {
    fields.len() == keys.len() && fields.iter().zip(keys).all(|((k, _), key)| k == key)
}

/// What the survey found of a column: whether it can be a record column, and how large it would
/// be as texts held once each.
#[derive(Default)]
struct Shape {
    rows: usize,
    layout: Layout,
    /// The distinct texts (their hashes) and their bytes: what the dictionary of texts holds.
    /// A collision of hashes only changes the choice of layout, never a value.
    distinct: HashSet<u64, BuildHasherDefault<DefaultHasher>>,
    distinct_bytes: usize,
}

/// The layout a column's values so far allow.
#[derive(Default)]
enum Layout {
    /// Only nulls so far.
    #[default]
    Unseen,
    /// Every value an object of these keys; each key's kinds of value so far.
    Record(Vec<String>, Vec<Kinds>),
    /// A value that is no such object: texts.
    Texts,
}

/// The kinds of value a record's key took, as flags.
#[derive(Clone, Copy, Default)]
struct Kinds(u8);

impl Kinds {
    const INT: u8 = 1;
    const FLOAT: u8 = 2;
    const BOOL: u8 = 4;
    /// A string, an object, an array or an integer past `i64`: not a record's.
    const OTHER: u8 = 8;

    fn of(raw: &str) -> Result<Kinds, String> {
        Ok(Kinds(match scalar(raw)? {
            Scalar::Null => 0,
            Scalar::Int(_) => Kinds::INT,
            Scalar::Float(_) => Kinds::FLOAT,
            Scalar::Bool(_) => Kinds::BOOL,
            Scalar::Str(_) | Scalar::Other => Kinds::OTHER,
        }))
    }

    /// At most one kind, and that a number or a flag: a typed column that never changes kind.
    fn one_typed(self) -> bool {
        self.0 & Kinds::OTHER == 0 && self.0.count_ones() <= 1
    }
}

impl Shape {
    fn see(&mut self, raw: &str) {
        self.rows += 1;
        if matches!(self.layout, Layout::Texts) || raw == "null" {
            return;
        }
        if self.distinct.insert(self.distinct.hasher().hash_one(raw)) {
            self.distinct_bytes += raw.len();
        }
        if !self.fits(raw) {
            self.layout = Layout::Texts;
            self.distinct = HashSet::default();
        }
    }

    /// Whether `raw`, not null, is an object whose keys are the record's so far, each value of a
    /// kind a typed column holds.
    fn fits(&mut self, raw: &str) -> bool {
        if !raw.starts_with('{') {
            return false;
        }
        let Ok(fields) = fields_of(raw) else { return false };
        if matches!(self.layout, Layout::Unseen) {
            let keys = fields.iter().map(|(k, _)| k.clone()).collect();
            self.layout = Layout::Record(keys, vec![Kinds::default(); fields.len()]);
        }
        let Layout::Record(keys, kinds) = &mut self.layout else { return false };
        if !same_keys(&fields, keys) {
            return false;
        }
        for ((_, value), kind) in fields.iter().zip(kinds.iter_mut()) {
            match Kinds::of(value.get()) {
                Ok(seen) => kind.0 |= seen.0,
                Err(_) => return false,
            }
            if !kind.one_typed() {
                return false;
            }
        }
        true
    }

    /// The column to fill: a record column if every value fits one and its typed columns (8
    /// bytes a value) are smaller than its distinct texts and a key per row; otherwise values.
    fn cells(self, expected: usize) -> Cells {
        match self.layout {
            Layout::Record(keys, _) if self.rows * keys.len() * 8 < self.rows * 4 + self.distinct_bytes => {
                let children = keys.iter().map(|_| Cells::Nulls(0)).collect();
                let valid = NullBufferBuilder::new(expected.max(self.rows));
                Cells::Record(Box::new(Record { keys, children, valid }))
            }
            _ => Cells::Nulls(0),
        }
    }
}

/// A record column being filled: each key's column, and which rows have a record (which also
/// counts its rows: a record of no keys has no column to count them).
struct Record {
    keys: Vec<String>,
    children: Vec<Cells>,
    valid: NullBufferBuilder,
}

/// A JSON object's fields in their order, each value as its text.
fn fields_of(text: &str) -> Result<Vec<(String, &RawValue)>, String> {
    struct Ordered;
    impl<'de> Visitor<'de> for Ordered {
        type Value = Vec<(String, &'de RawValue)>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a row as a JSON object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut fields = vec![];
            while let Some(field) = map.next_entry()? {
                fields.push(field);
            }
            Ok(fields)
        }
    }
    let mut de = serde_json::Deserializer::from_str(text);
    de.deserialize_map(Ordered).map_err(|e| e.to_string())
}

/// One column's values so far, in the narrowest form that holds them all exactly.
enum Cells {
    /// Only nulls so far: this many.
    Nulls(usize),
    Int(Int64Builder),
    Float(Float64Builder),
    Bool(BooleanBuilder),
    Str(Interned),
    /// Nested values, or values of more than one kind: their JSON texts.
    Json(Interned),
    /// Objects of the same keys, each key's values of one kind (`Shape::cells`).
    Record(Box<Record>),
}

/// A scalar of a row, read from its JSON text.
enum Scalar {
    Null,
    Int(i64),
    Float(f64),
    Bool(bool),
    Str(String),
    /// An object, an array or an integer past `i64`: kept as its text.
    Other,
}

fn scalar(raw: &str) -> Result<Scalar, String> {
    let bad = |e: &dyn std::fmt::Display| format!("{raw}: {e}");
    Ok(match raw.as_bytes().first() {
        Some(b'n') => Scalar::Null,
        Some(b't') => Scalar::Bool(true),
        Some(b'f') => Scalar::Bool(false),
        Some(b'"') => Scalar::Str(serde_json::from_str(raw).map_err(|e| bad(&e))?),
        Some(b'{' | b'[') => Scalar::Other,
        // serde_json writes a float with a point or an exponent, an integer without
        _ if raw.contains(['.', 'e', 'E']) => Scalar::Float(raw.parse().map_err(|e| bad(&e))?),
        _ => raw.parse().map_or(Scalar::Other, Scalar::Int),
    })
}

impl Cells {
    /// Appends a row's value, given as its JSON text; `expected` is the column's length to be.
    fn push(&mut self, raw: &str, expected: usize) -> Result<(), String> {
        if let Cells::Record(record) = self {
            if record.push(raw, expected)? {
                return Ok(());
            }
            // a row the survey did not see, of other keys or kinds: the column keeps texts
            self.keep_texts();
        }
        let value = scalar(raw)?;
        match (&mut *self, value) {
            (Cells::Nulls(n), Scalar::Null) => *n += 1,
            (Cells::Int(v), Scalar::Int(x)) => v.append_value(x),
            (Cells::Float(v), Scalar::Float(x)) => v.append_value(x),
            (Cells::Bool(v), Scalar::Bool(x)) => v.append_value(x),
            (Cells::Str(v), Scalar::Str(x)) => v.push(Some(&x)),
            (Cells::Json(v), _) => v.push(Some(raw).filter(|r| *r != "null")),
            (Cells::Int(v), Scalar::Null) => v.append_null(),
            (Cells::Float(v), Scalar::Null) => v.append_null(),
            (Cells::Bool(v), Scalar::Null) => v.append_null(),
            (Cells::Str(v), Scalar::Null) => v.push(None),
            (Cells::Nulls(n), first) => {
                let n = *n;
                // the column's kind is known at its first value: its builder is made whole then
                let rows = expected.max(n + 1);
                macro_rules! begun {
                    ($builder:ident, $cells:ident, $x:expr) => {{
                        let mut b = $builder::with_capacity(rows);
                        b.append_nulls(n);
                        b.append_value($x);
                        Cells::$cells(b)
                    }};
                }
                *self = match first {
                    Scalar::Int(x) => begun!(Int64Builder, Int, x),
                    Scalar::Float(x) => begun!(Float64Builder, Float, x),
                    Scalar::Bool(x) => begun!(BooleanBuilder, Bool, x),
                    Scalar::Str(x) => Cells::Str(Interned::nulls_then(rows, n, &x)),
                    Scalar::Null | Scalar::Other => Cells::Json(Interned::nulls_then(rows, n, raw)),
                };
            }
            // a second kind of value: the column keeps every value's text
            (_, _) => {
                self.keep_texts();
                self.push(raw, expected)?;
            }
        }
        Ok(())
    }

    /// The column as JSON texts, written as serde_json wrote them.
    fn keep_texts(&mut self) {
        if matches!(self, Cells::Json(_)) {
            return;
        }
        let mut texts = Interned::default();
        self.texts().iter().for_each(|text| texts.push(text.as_deref()));
        *self = Cells::Json(texts);
    }

    /// Every row's value so far as serde_json writes it (`None`: null).
    fn texts(&self) -> Vec<Option<String>> {
        match self {
            Cells::Nulls(n) => vec![None; *n],
            Cells::Int(v) => v.finish_cloned().iter().map(|x| x.map(|x| x.to_string())).collect(),
            Cells::Float(v) => {
                let write = |x: f64| serde_json::to_string(&x).expect("a float writes");
                v.finish_cloned().iter().map(|x| x.map(write)).collect()
            }
            Cells::Bool(v) => v.finish_cloned().iter().map(|x| x.map(|x| x.to_string())).collect(),
            Cells::Str(v) => {
                let write = |s: String| serde_json::to_string(&s).expect("a string writes");
                v.texts().into_iter().map(|s| s.map(write)).collect()
            }
            Cells::Json(v) => v.texts(),
            Cells::Record(record) => record.texts(),
        }
    }

    /// Whether a value of `kind` (one kind, or none for null) keeps this column's kind.
    fn takes(&self, kind: Kinds) -> bool {
        match self {
            Cells::Nulls(_) => kind.one_typed(),
            Cells::Int(_) => kind.0 & !Kinds::INT == 0,
            Cells::Float(_) => kind.0 & !Kinds::FLOAT == 0,
            Cells::Bool(_) => kind.0 & !Kinds::BOOL == 0,
            Cells::Str(_) | Cells::Json(_) | Cells::Record(_) => false,
        }
    }

    fn data_type(&self) -> DataType {
        match self {
            Cells::Nulls(_) => DataType::Null,
            Cells::Int(_) => DataType::Int64,
            Cells::Float(_) => DataType::Float64,
            Cells::Bool(_) => DataType::Boolean,
            Cells::Str(_) | Cells::Json(_) => DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8)),
            Cells::Record(record) => DataType::Struct(record.fields()),
        }
    }

    fn into_array(self) -> Result<ArrayRef, String> {
        Ok(match self {
            Cells::Nulls(n) => Arc::new(NullArray::new(n)),
            Cells::Int(mut v) => Arc::new(v.finish()),
            Cells::Float(mut v) => Arc::new(v.finish()),
            Cells::Bool(mut v) => Arc::new(v.finish()),
            Cells::Str(v) | Cells::Json(v) => Arc::new(v.into_array()),
            Cells::Record(record) => Arc::new(record.into_array()?),
        })
    }
}

impl Record {
    /// Appends a row's value, null or an object of the record's keys each of its column's kind;
    /// `false` (nothing appended) for any other value.
    fn push(&mut self, raw: &str, expected: usize) -> Result<bool, String> {
        if raw == "null" {
            self.valid.append_null();
            self.children.iter_mut().try_for_each(|child| child.push("null", expected))?;
            return Ok(true);
        }
        if !raw.starts_with('{') {
            return Ok(false);
        }
        let fields = fields_of(raw)?;
        let kinds = fields.iter().map(|(_, value)| Kinds::of(value.get())).collect::<Result<Vec<_>, _>>()?;
        if !same_keys(&fields, &self.keys) || kinds.iter().zip(&self.children).any(|(&kind, child)| !child.takes(kind))
        {
            return Ok(false);
        }
        self.valid.append_non_null();
        for ((_, value), child) in fields.iter().zip(self.children.iter_mut()) {
            child.push(value.get(), expected)?;
        }
        Ok(true)
    }

    /// Every row's record so far as serde_json writes it.
    fn texts(&self) -> Vec<Option<String>> {
        let keys: Vec<String> = self.keys.iter().map(|k| serde_json::to_string(k).expect("a string writes")).collect();
        let children: Vec<Vec<Option<String>>> = self.children.iter().map(Cells::texts).collect();
        let valid = self.valid.finish_cloned();
        (0..self.valid.len())
            .map(|row| {
                valid.as_ref().is_none_or(|v| v.is_valid(row)).then(|| {
                    let field = |(key, child): (&String, &Vec<Option<String>>)| {
                        format!("{key}:{}", child[row].as_deref().unwrap_or("null"))
                    };
                    format!("{{{}}}", keys.iter().zip(&children).map(field).collect::<Vec<_>>().join(","))
                })
            })
            .collect()
    }

    fn fields(&self) -> Fields {
        self.keys.iter().zip(&self.children).map(|(key, child)| Field::new(key, child.data_type(), true)).collect()
    }

    fn into_array(mut self) -> Result<StructArray, String> {
        let (fields, rows) = (self.fields(), self.valid.len());
        let nulls: Option<NullBuffer> = self.valid.finish();
        let children = self.children.into_iter().map(Cells::into_array).collect::<Result<Vec<_>, _>>()?;
        StructArray::try_new_with_length(fields, children, nulls, rows).map_err(|e| e.to_string())
    }
}

/// Texts held once each, and each row's index into them (Arrow's dictionary builder).
struct Interned(StringDictionaryBuilder<Int32Type>);

impl Default for Interned {
    fn default() -> Interned {
        Interned(StringDictionaryBuilder::new())
    }
}

impl Interned {
    /// `n` nulls then `text`, in a column of `rows` rows to be (the keys' length; the texts'
    /// is not known).
    fn nulls_then(rows: usize, n: usize, text: &str) -> Interned {
        let mut interned = Interned(StringDictionaryBuilder::with_capacity(rows, 0, 0));
        interned.0.append_nulls(n);
        interned.0.append_value(text);
        interned
    }

    fn push(&mut self, text: Option<&str>) {
        self.0.append_option(text);
    }

    /// Every row's text so far, for a column that turns out to need another kind.
    fn texts(&self) -> Vec<Option<String>> {
        let array = self.0.finish_cloned();
        let texts = array.downcast_dict::<StringArray>().expect("a dictionary of strings");
        texts.into_iter().map(|t| t.map(str::to_string)).collect()
    }

    fn into_array(mut self) -> DictionaryArray<Int32Type> {
        self.0.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::Array;

    #[derive(Serialize)]
    struct Row {
        name: String,
        n: u64,
        x: Option<f64>,
        on: bool,
        nested: Option<std::collections::BTreeMap<String, f64>>,
        #[serde(flatten)]
        more: Inner,
    }
    #[derive(Serialize)]
    struct Inner {
        a: i64,
    }

    fn row(name: &str, n: u64, x: Option<f64>) -> Row {
        let nested = x.map(|x| std::collections::BTreeMap::from([("k".to_string(), x)]));
        Row { name: name.into(), n, x, on: n % 2 == 0, nested, more: Inner { a: -(n as i64) } }
    }

    #[test]
    fn a_short_tables_text_is_what_serde_json_writes_for_its_rows() {
        let rows = [row("p", 1, Some(1.5)), row("a longer name", 22, None), row("r", 3, Some(-0.25))];
        for n in 0..=rows.len() {
            let expected = serde_json::to_string(&rows[..n]).unwrap();
            // told too few rows, too many or the right count: the same text, room or not
            for told in [0, n, 10 * n + 1] {
                assert_eq!(json_rows(rows[..n].iter(), told), expected, "{n} rows, told {told}");
            }
        }
        let mut taken = Taken::default();
        take(&mut taken, ("t", 3, 4), || rows.iter());
        assert!(taken.batches.is_empty());
        assert_eq!(taken.texts, [("t", serde_json::to_string(&rows).unwrap())]);
    }

    #[test]
    fn fields_keep_their_order_and_kinds_and_nested_values_their_text() {
        let rows = [row("p", 1, Some(1.0)), row("q", 2, None), row("r", 3, Some(1.0))];
        let batch = table(|| rows.iter(), 3).unwrap();
        let schema = batch.schema();
        let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
        assert_eq!(names, ["name", "n", "x", "on", "nested", "a"]);
        assert_eq!(batch.column(1).data_type(), &DataType::Int64);
        assert_eq!(batch.column(2).data_type(), &DataType::Float64);
        assert_eq!(batch.column(2).null_count(), 1);
        assert_eq!(batch.column(3).data_type(), &DataType::Boolean);
        let nested = batch.column(4).as_any().downcast_ref::<DictionaryArray<Int32Type>>().unwrap();
        assert_eq!(nested.values().len(), 1, "the equal texts are held once");
        assert!(nested.is_null(1));
        assert_eq!(batch.schema().field(4).metadata().get("fairsim").map(String::as_str), Some("json"));
        assert!(batch.schema().field(0).metadata().is_empty());
    }

    #[test]
    fn a_column_of_two_kinds_keeps_each_value_as_written() {
        #[derive(Serialize)]
        #[serde(untagged)]
        enum Either {
            N(u64),
            F(f64),
            S(&'static str),
        }
        #[derive(Serialize)]
        struct R {
            v: Either,
            w: Either,
        }
        let rows = [
            R { v: Either::N(3), w: Either::S("a\"b") },
            R { v: Either::F(0.5), w: Either::F(1e300) },
            R { v: Either::N(u64::MAX), w: Either::S("a\"b") },
        ];
        let batch = table(|| rows.iter(), 1).unwrap(); // fewer rows expected than come: the columns grow
        let texts = |c: usize| -> Vec<String> {
            let v = batch.column(c).as_any().downcast_ref::<DictionaryArray<Int32Type>>().unwrap();
            let texts = v.downcast_dict::<StringArray>().unwrap();
            texts.into_iter().map(|t| t.unwrap().to_string()).collect()
        };
        assert_eq!(texts(0), ["3", "0.5", "18446744073709551615"]);
        assert_eq!(texts(1), [r#""a\"b""#, "1e+300", r#""a\"b""#]); // as serde_json writes it
    }

    #[test]
    fn rows_with_other_fields_are_refused_and_no_rows_make_an_empty_batch() {
        #[derive(Serialize)]
        struct R {
            #[serde(skip_serializing_if = "Option::is_none")]
            v: Option<u64>,
        }
        let rows = [R { v: Some(1) }, R { v: None }];
        assert!(table(|| rows.iter(), 2).unwrap_err().contains("row 1"));
        assert_eq!(table(std::iter::empty::<R>, 0).unwrap().num_rows(), 0);
    }

    /// A row with a nested value of its own, as a flow's counters are.
    #[derive(Serialize)]
    struct Counted {
        name: String,
        totals: Option<Totals>,
    }
    #[derive(Serialize, Clone, Copy)]
    struct Totals {
        sent: u64,
        mean_s: f64,
        done: bool,
        lost: Option<u64>,
    }

    fn counted(n: u64) -> Counted {
        let totals =
            (n != 2).then_some(Totals { sent: n * 1000, mean_s: n as f64 / 3.0, done: n % 2 == 0, lost: None });
        Counted { name: format!("f{n}"), totals }
    }

    #[test]
    fn objects_of_one_shape_and_their_own_values_become_record_columns_of_typed_keys() {
        let rows: Vec<Counted> = (0..6).map(counted).collect();
        let batch = table(|| rows.iter(), 6).unwrap();
        let totals = batch.column(1).as_any().downcast_ref::<StructArray>().expect("a record column");
        let schema = batch.schema();
        let kinds: Vec<(&str, &DataType)> = match schema.field(1).data_type() {
            DataType::Struct(fields) => fields.iter().map(|f| (f.name().as_str(), f.data_type())).collect(),
            other => panic!("{other}"),
        };
        assert_eq!(
            kinds,
            [
                ("sent", &DataType::Int64),
                ("mean_s", &DataType::Float64),
                ("done", &DataType::Boolean),
                ("lost", &DataType::Null)
            ]
        );
        assert!(batch.schema().field(1).metadata().is_empty(), "not JSON texts");
        assert!(totals.is_null(2) && totals.is_valid(3));
        let sent = totals.column(0).as_any().downcast_ref::<arrow_array::Int64Array>().unwrap();
        assert_eq!(sent.value(5), 5000);
        let mean = totals.column(1).as_any().downcast_ref::<arrow_array::Float64Array>().unwrap();
        assert_eq!(mean.value(4), 4.0 / 3.0);
    }

    #[test]
    fn objects_that_share_their_texts_change_kind_or_keys_stay_texts() {
        // the zero counters of idle ports: one text held once is smaller than typed columns
        let idle: Vec<Counted> =
            (0..50).map(|n| Counted { name: format!("p{n}"), totals: counted(0).totals }).collect();
        // a key that is an integer in one row and a float in another
        #[derive(Serialize)]
        #[serde(untagged)]
        enum Number {
            N(u64),
            F(f64),
        }
        #[derive(Serialize)]
        struct Mixed {
            m: std::collections::BTreeMap<&'static str, Number>,
        }
        let mixed = [Mixed { m: [("a", Number::N(1))].into() }, Mixed { m: [("a", Number::F(1.5))].into() }];
        // other keys, and a string among the values
        let keyed = [Mixed { m: [("a", Number::N(1))].into() }, Mixed { m: [("b", Number::N(2))].into() }];
        #[derive(Serialize)]
        struct Worded {
            w: std::collections::BTreeMap<&'static str, &'static str>,
        }
        let worded = [Worded { w: [("a", "x")].into() }, Worded { w: [("a", "y")].into() }];
        let is_text = |batch: RecordBatch, c: usize| batch.schema().field(c).metadata().get("fairsim").is_some();
        assert!(is_text(table(|| idle.iter(), 50).unwrap(), 1));
        assert!(is_text(table(|| mixed.iter(), 2).unwrap(), 0));
        assert!(is_text(table(|| keyed.iter(), 2).unwrap(), 0));
        assert!(is_text(table(|| worded.iter(), 2).unwrap(), 0));
    }

    #[test]
    fn a_record_column_meeting_a_row_the_survey_did_not_see_keeps_every_value_as_written() {
        #[derive(Serialize)]
        struct R {
            v: serde_json::Value,
        }
        // the survey reads every other row of these 10,000; row 5,001 has a float for `a`
        let value = |n: u64| match n {
            5001 => serde_json::json!({ "a": 1.5, "b": 0.5 }),
            n => serde_json::json!({ "a": n, "b": n as f64 / 4.0 }),
        };
        let rows: Vec<R> = (0..10_000).map(|n| R { v: value(n) }).collect();
        let batch = table(|| rows.iter(), rows.len()).unwrap();
        assert_eq!(batch.schema().field(0).metadata().get("fairsim").map(String::as_str), Some("json"));
        let column = batch.column(0).as_any().downcast_ref::<DictionaryArray<Int32Type>>().unwrap();
        let texts: Vec<String> =
            column.downcast_dict::<StringArray>().unwrap().into_iter().map(|t| t.unwrap().into()).collect();
        let written: Vec<String> = rows.iter().map(|r| serde_json::to_string(&r.v).unwrap()).collect();
        assert_eq!(texts, written);
        // and without that row, the same rows make a record column
        let rows: Vec<R> = (0..10_000).map(|n| R { v: value(if n == 5001 { 5000 } else { n }) }).collect();
        let batch = table(|| rows.iter(), rows.len()).unwrap();
        assert!(batch.column(0).as_any().downcast_ref::<StructArray>().is_some());
    }
}
