//! Enum types (CREATE TYPE ... AS ENUM): each type's labels in their order, and the rules of
//! ALTER TYPE ... ADD VALUE / RENAME VALUE. A stored value of an enum is its label's sort
//! order (pg_enum.enumsortorder, a float4 as in PostgreSQL), so values compare, sort and hash
//! as numbers, and adding a label between two others changes no stored value.

use super::QualifiedName;
use crate::error::{Error, Result, SqlState};
use crate::vector::{ListVec, StringVec, Vector, VectorData};

/// PostgreSQL's NAMEDATALEN - 1: the longest label, in bytes.
const LABEL_MAX_BYTES: usize = 63;

#[derive(Debug, Clone, PartialEq)]
pub struct EnumType {
    pub oid: u32,
    pub name: QualifiedName,
    /// Sorted by `sort_order`.
    pub labels: Vec<EnumLabel>,
    pub comment: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct EnumLabel {
    /// The pg_enum row's OID.
    pub oid: u32,
    pub label: String,
    pub sort_order: f32,
    /// Added by ALTER TYPE ... ADD VALUE rather than by CREATE TYPE: such a label is not
    /// usable before COMMIT even in the transaction that created the type. Not stored (a
    /// stored type is committed).
    pub added_by_alter: bool,
}

/// What a transaction's snapshot knew of an enum type, for [`EnumType::check_committed`].
#[derive(Debug, Clone, Copy)]
pub enum CommittedEnum<'a> {
    /// The transaction changed no type: every label is committed.
    AllCommitted,
    /// The transaction created the type.
    CreatedNow,
    /// The type as committed before the transaction changed it.
    Was(&'a EnumType),
}

/// Where ALTER TYPE ... ADD VALUE puts the new label: at the end, or next to an existing one.
#[derive(Debug, Clone, PartialEq)]
pub enum LabelPosition {
    Last,
    Before(String),
    After(String),
}

impl EnumType {
    /// A new type whose labels are `labels` in that order, numbered 1, 2, ... as PostgreSQL
    /// numbers them; `oid` is the type's, `label_oids` gives one per label.
    pub fn new(
        name: QualifiedName,
        oid: u32,
        labels: &[String],
        mut label_oids: impl FnMut() -> u32,
    ) -> Result<EnumType> {
        let mut enum_type = EnumType {
            oid,
            name,
            labels: Vec::with_capacity(labels.len()),
            comment: None,
        };
        for (position, label) in labels.iter().enumerate() {
            check_label(label)?;
            if enum_type.sort_order_of(label).is_some() {
                // What PostgreSQL's unique index on pg_enum says.
                return Err(Error::new(
                    SqlState::UniqueViolation,
                    "duplicate key value violates unique constraint \"pg_enum_typid_label_index\"",
                )
                .with_detail(format!(
                    "Key (enumtypid, enumlabel)=({oid}, {label}) already exists."
                )));
            }
            enum_type.labels.push(EnumLabel {
                oid: label_oids(),
                label: label.clone(),
                sort_order: (position + 1) as f32,
                added_by_alter: false,
            });
        }
        Ok(enum_type)
    }

    /// The label of a stored value, `None` for a sort order no label has (a value written
    /// under a label that a later transaction cannot have removed: PostgreSQL drops none).
    pub fn label_of(&self, sort_order: f32) -> Option<&str> {
        self.labels
            .binary_search_by(|l| l.sort_order.total_cmp(&sort_order))
            .ok()
            .map(|i| self.labels[i].label.as_str())
    }

    pub fn sort_order_of(&self, label: &str) -> Option<f32> {
        self.labels
            .iter()
            .find(|l| l.label == label)
            .map(|l| l.sort_order)
    }

    /// enum_in: the stored value of `text`, or PostgreSQL's 22P02.
    pub fn parse(&self, text: &str) -> Result<f32> {
        self.sort_order_of(text).ok_or_else(|| {
            Error::new(
                SqlState::InvalidTextRepresentation,
                format!(
                    "invalid input value for enum {}: \"{text}\"",
                    self.name.name
                ),
            )
        })
    }

    /// PostgreSQL's 55P04 for the value `sort_order` when its label was added by ALTER TYPE
    /// ... ADD VALUE in the running transaction (labels of CREATE TYPE are usable at once).
    pub fn check_committed(&self, sort_order: f32, committed: CommittedEnum<'_>) -> Result<()> {
        let label = self.labels.iter().find(|l| l.sort_order == sort_order);
        let uncommitted = |label: &EnumLabel| match committed {
            CommittedEnum::AllCommitted => false,
            CommittedEnum::CreatedNow => label.added_by_alter,
            CommittedEnum::Was(before) => !before.labels.iter().any(|l| l.oid == label.oid),
        };
        match label {
            Some(label) if uncommitted(label) => Err(Error::new(
                SqlState::UnsafeNewEnumValueUsage,
                format!(
                    "unsafe use of new value \"{}\" of enum type {}",
                    label.label, self.name.name
                ),
            )
            .with_hint("New enum values must be committed before they can be used.")),
            _ => Ok(()),
        }
    }

    /// enum_in over a text vector (COPY FROM, casts): the stored values, NULL staying NULL;
    /// `committed` as for [`EnumType::check_committed`].
    pub fn parse_vector(&self, text: &Vector, committed: CommittedEnum<'_>) -> Result<Vector> {
        if let VectorData::List(arrays) = &text.data {
            let elements = self.parse_vector(arrays.child(), committed)?;
            return Ok(with_elements(text, arrays, elements));
        }
        let VectorData::Text(labels) = &text.data else {
            return Err(Error::internal("enum input that is not text"));
        };
        let sort_orders = (0..text.len())
            .map(|row| match text.is_valid(row) {
                true => {
                    let sort_order = self.parse(labels.get(row))?;
                    self.check_committed(sort_order, committed)?;
                    Ok(sort_order)
                }
                false => Ok(0.0),
            })
            .collect::<Result<Vec<f32>>>()?;
        Ok(Vector::new(
            VectorData::Float32(sort_orders),
            text.validity.clone(),
        ))
    }

    /// enum_out over a vector of stored values: their labels, NULL staying NULL.
    pub fn label_vector(&self, values: &Vector) -> Result<Vector> {
        if let VectorData::List(arrays) = &values.data {
            let elements = self.label_vector(arrays.child())?;
            return Ok(with_elements(values, arrays, elements));
        }
        let VectorData::Float32(sort_orders) = &values.data else {
            return Err(Error::internal("enum values that are not float4"));
        };
        let mut labels = StringVec::with_capacity(values.len(), values.len() * 8);
        for (row, &sort_order) in sort_orders.iter().enumerate() {
            let label = match values.is_valid(row) {
                true => self.label_of(sort_order).ok_or_else(|| {
                    Error::internal(format!("invalid internal value for enum: {sort_order}"))
                })?,
                false => "",
            };
            labels.push(label);
        }
        Ok(Vector::new(
            VectorData::Text(labels),
            values.validity.clone(),
        ))
    }

    /// ALTER TYPE ... ADD VALUE: the type with `label` added at `position` (its sort order
    /// chosen as PostgreSQL's AddEnumLabel does). `Ok(None)` when the label exists and
    /// `if_not_exists` says to skip. Where float4 has no room left between two labels,
    /// PostgreSQL numbers them all again, 1, 2, ...: done when `may_renumber` (no column
    /// stores the type's values, which are sort orders), else 0A000.
    pub fn with_label(
        &self,
        label: &str,
        position: &LabelPosition,
        if_not_exists: bool,
        oid: u32,
        may_renumber: bool,
    ) -> Result<Option<EnumType>> {
        check_label(label)?;
        if self.sort_order_of(label).is_some() {
            if if_not_exists {
                return Ok(None);
            }
            return Err(label_exists(label));
        }
        let sort_order = match position {
            LabelPosition::Last => self.labels.last().map_or(1.0, |l| l.sort_order + 1.0),
            LabelPosition::Before(neighbour) | LabelPosition::After(neighbour) => {
                let at = self
                    .labels
                    .iter()
                    .position(|l| &l.label == neighbour)
                    .ok_or_else(|| not_a_label(neighbour))?;
                let before = matches!(position, LabelPosition::Before(_));
                let here = self.labels[at].sort_order;
                let other = match before {
                    true => at.checked_sub(1).map(|i| self.labels[i].sort_order),
                    false => self.labels.get(at + 1).map(|l| l.sort_order),
                };
                match other {
                    None if before => here - 1.0,
                    None => here + 1.0,
                    Some(other) => {
                        let middle = (here + other) / 2.0;
                        if middle == here || middle == other {
                            if !may_renumber {
                                return Err(Error::unsupported(
                                    "renumbering the labels of an enum type that columns use",
                                ));
                            }
                            let mut renumbered = self.clone();
                            for (position, label) in renumbered.labels.iter_mut().enumerate() {
                                label.sort_order = (position + 1) as f32;
                            }
                            return renumbered.with_label(
                                label,
                                position,
                                if_not_exists,
                                oid,
                                false,
                            );
                        }
                        middle
                    }
                }
            }
        };
        let mut labels = self.labels.clone();
        let at = labels.partition_point(|l| l.sort_order < sort_order);
        labels.insert(
            at,
            EnumLabel {
                oid,
                label: label.to_string(),
                sort_order,
                added_by_alter: true,
            },
        );
        Ok(Some(EnumType {
            labels,
            ..self.clone()
        }))
    }

    /// ALTER TYPE ... RENAME VALUE.
    pub fn with_label_renamed(&self, old: &str, new: &str) -> Result<EnumType> {
        check_label(new)?;
        let mut renamed = self.clone();
        let label = renamed
            .labels
            .iter_mut()
            .find(|l| l.label == old)
            .ok_or_else(|| not_a_label(old))?;
        label.label = new.to_string();
        if self.sort_order_of(new).is_some() {
            return Err(label_exists(new));
        }
        Ok(renamed)
    }
}

fn check_label(label: &str) -> Result<()> {
    if label.len() > LABEL_MAX_BYTES {
        return Err(Error::new(
            SqlState::InvalidParameterValue,
            format!("invalid enum label \"{label}\""),
        )
        .with_detail("Labels must be 63 bytes or less."));
    }
    Ok(())
}

fn label_exists(label: &str) -> Error {
    Error::new(
        SqlState::DuplicateObject,
        format!("enum label \"{label}\" already exists"),
    )
}

fn not_a_label(label: &str) -> Error {
    Error::new(
        SqlState::InvalidParameterValue,
        format!("\"{label}\" is not an existing enum label"),
    )
}

/// Arrays of enum values converted element by element: `arrays` (the data of `vector`) with
/// its elements replaced by `elements`, its shapes and NULLs kept.
fn with_elements(vector: &Vector, arrays: &ListVec, elements: Vector) -> Vector {
    Vector::new(
        VectorData::List(arrays.with_child(elements)),
        vector.validity.clone(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mood() -> EnumType {
        let labels = ["sad", "ok", "happy"].map(String::from);
        let mut oid = 100;
        EnumType::new(QualifiedName::new(2200, "mood"), 100, &labels, || {
            oid += 1;
            oid
        })
        .expect("valid labels")
    }

    fn add(t: &EnumType, label: &str, position: LabelPosition) -> EnumType {
        t.with_label(label, &position, false, 200, true)
            .expect("a new label")
            .expect("added")
    }

    #[test]
    fn labels_added_keep_postgres_sort_orders() {
        let t = add(&mood(), "awful", LabelPosition::Before("sad".into()));
        let t = add(&t, "fine", LabelPosition::After("ok".into()));
        let t = add(&t, "ecstatic", LabelPosition::Last);
        let order: Vec<(&str, f32)> = t
            .labels
            .iter()
            .map(|l| (l.label.as_str(), l.sort_order))
            .collect();
        assert_eq!(
            order,
            [
                ("awful", 0.0),
                ("sad", 1.0),
                ("ok", 2.0),
                ("fine", 2.5),
                ("happy", 3.0),
                ("ecstatic", 4.0)
            ]
        );
        assert_eq!(t.label_of(2.5), Some("fine"));
        assert_eq!(t.parse("happy").ok(), Some(3.0));
        assert!(t.parse("x").is_err());
    }

    #[test]
    fn duplicate_and_missing_labels_are_errors() {
        let t = mood();
        assert!(t
            .with_label("ok", &LabelPosition::Last, false, 1, true)
            .is_err());
        assert!(matches!(
            t.with_label("ok", &LabelPosition::Last, true, 1, true),
            Ok(None)
        ));
        let nowhere = LabelPosition::After("nope".into());
        assert!(t.with_label("new", &nowhere, false, 1, true).is_err());
        assert!(t.with_label_renamed("ok", "sad").is_err());
        let renamed = t.with_label_renamed("ok", "meh").expect("a free label");
        assert_eq!(renamed.label_of(2.0), Some("meh"));
    }

    #[test]
    fn labels_are_renumbered_when_no_room_is_left() {
        let mut t = mood();
        for i in 0..30 {
            let before = LabelPosition::Before("ok".into());
            t = add(&t, &format!("i{i}"), before);
        }
        let labels: Vec<&str> = t.labels.iter().map(|l| l.label.as_str()).collect();
        assert_eq!(labels[..3], ["sad", "i0", "i1"]);
        assert_eq!(labels[30..], ["i29", "ok", "happy"]);
        assert!(t
            .labels
            .windows(2)
            .all(|w| w[0].sort_order < w[1].sort_order));
    }
}
