//! A run report's long tables (its flows, queues and their per-interval rows) as Arrow record
//! batches, so that Python holds them as columns instead of as a dictionary per row: at a
//! k = 64 fat-tree's 393,216 queues the dictionaries took a gigabyte (docs/performance.md,
//! "The report as columns").
//!
//! Each row is serialised as the JSON report writes it, and its top-level fields are read back
//! in their order: integers, floats, strings and booleans become typed columns, and a nested
//! value (a summary, the counters, a discipline's parameters) stays as its JSON text in a
//! dictionary-encoded column, marked `json` in the field's metadata, which Python decodes as it
//! reads the row (`fairsim.columns`). A row read from the columns is therefore the JSON report's
//! row, key for key and value for value; the equal texts of nested values (the zero counters of
//! idle ports, a shared discipline's parameters) are held once.
//!
//! A table whose rows do not all have the same fields in the same order cannot be laid out so;
//! it is an error, and the caller falls back to the JSON report.

use arrow_array::builder::{BooleanBuilder, Float64Builder, Int64Builder, StringDictionaryBuilder};
use arrow_array::types::Int32Type;
use arrow_array::{ArrayRef, DictionaryArray, NullArray, RecordBatch, RecordBatchOptions, StringArray};
use arrow_schema::{DataType, Field, Schema};
use serde::de::{Deserializer, MapAccess, Visitor};
use serde::Serialize;
use serde_json::value::RawValue;
use std::collections::HashMap;
use std::sync::Arc;

/// The metadata key and value that mark a column of JSON texts.
pub const ENCODING: (&str, &str) = ("fairsim", "json");

/// The table called `name`, of `rows` rows that `make` makes a row at a time: into `tables` as
/// a batch if they are at least `min_rows` and can be laid out as columns, otherwise into
/// `into`, for the JSON report.
pub fn take<T: Serialize, I: Iterator<Item = T>>(
    tables: &mut Vec<(&'static str, RecordBatch)>,
    (name, rows, min_rows): (&'static str, usize, usize),
    make: impl Fn() -> I,
    into: &mut Vec<T>,
) {
    if rows >= min_rows {
        if let Ok(batch) = table(make(), rows) {
            tables.push((name, batch));
            return;
        }
    }
    *into = make().collect();
}

/// `rows` as one record batch; an error says why they cannot be. `expected` is how many rows
/// there will be: each column is made that long at once, as Arrow will hold it (8 bytes a number),
/// rather than grown by doubling, which at a 100,000-flow run's 400,000 interval rows of a few
/// dozen columns held about twice the final columns while the last table was made
/// (docs/performance.md, "Memory at 100,000 flows"). A wrong count costs only growth.
pub fn table<T: Serialize>(rows: impl IntoIterator<Item = T>, expected: usize) -> Result<RecordBatch, String> {
    let mut names: Vec<String> = vec![];
    let mut columns: Vec<Cells> = vec![];
    let mut bytes = vec![];
    let mut count = 0;
    for (n, row) in rows.into_iter().enumerate() {
        count += 1;
        bytes.clear();
        serde_json::to_writer(&mut bytes, &row).map_err(|e| e.to_string())?;
        let fields = fields_of(std::str::from_utf8(&bytes).map_err(|e| e.to_string())?)?;
        if n == 0 {
            names = fields.iter().map(|(k, _)| k.clone()).collect();
            columns = names.iter().map(|_| Cells::Nulls(0)).collect();
        } else if fields.len() != names.len() || fields.iter().zip(&names).any(|((k, _), name)| k != name) {
            return Err(format!("row {n} has other fields than row 0"));
        }
        for ((_, value), cells) in fields.iter().zip(columns.iter_mut()) {
            cells.push(value.get(), expected)?;
        }
    }
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
    let arrays: Vec<ArrayRef> = columns.into_iter().map(Cells::into_array).collect();
    let options = RecordBatchOptions::new().with_row_count(Some(count));
    RecordBatch::try_new_with_options(Arc::new(Schema::new(fields)), arrays, &options).map_err(|e| e.to_string())
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
        let mut texts = Interned::default();
        match &*self {
            Cells::Nulls(n) => (0..*n).for_each(|_| texts.push(None)),
            Cells::Int(v) => v.finish_cloned().iter().for_each(|x| texts.push(x.map(|x| x.to_string()).as_deref())),
            Cells::Float(v) => {
                let write = |x: f64| serde_json::to_string(&x).expect("a float writes");
                v.finish_cloned().iter().for_each(|x| texts.push(x.map(write).as_deref()))
            }
            Cells::Bool(v) => v.finish_cloned().iter().for_each(|x| texts.push(x.map(|x| x.to_string()).as_deref())),
            Cells::Str(v) => {
                let write = |s: String| serde_json::to_string(&s).expect("a string writes");
                v.texts().into_iter().for_each(|s| texts.push(s.map(write).as_deref()))
            }
            Cells::Json(_) => return,
        }
        *self = Cells::Json(texts);
    }

    fn data_type(&self) -> DataType {
        match self {
            Cells::Nulls(_) => DataType::Null,
            Cells::Int(_) => DataType::Int64,
            Cells::Float(_) => DataType::Float64,
            Cells::Bool(_) => DataType::Boolean,
            Cells::Str(_) | Cells::Json(_) => DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8)),
        }
    }

    fn into_array(self) -> ArrayRef {
        match self {
            Cells::Nulls(n) => Arc::new(NullArray::new(n)),
            Cells::Int(mut v) => Arc::new(v.finish()),
            Cells::Float(mut v) => Arc::new(v.finish()),
            Cells::Bool(mut v) => Arc::new(v.finish()),
            Cells::Str(v) | Cells::Json(v) => Arc::new(v.into_array()),
        }
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
    fn fields_keep_their_order_and_kinds_and_nested_values_their_text() {
        let rows = [row("p", 1, Some(1.0)), row("q", 2, None), row("r", 3, Some(1.0))];
        let batch = table(rows, 3).unwrap();
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
        let batch = table(rows, 1).unwrap(); // fewer rows expected than come: the columns grow
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
        assert!(table([R { v: Some(1) }, R { v: None }], 2).unwrap_err().contains("row 1"));
        assert_eq!(table::<R>([], 0).unwrap().num_rows(), 0);
    }
}
