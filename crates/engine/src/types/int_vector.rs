//! `int2vector` and `oidvector`, the catalog's one-dimensional arrays subscripted from 0
//! (pg_index.indkey[0] is an index's first column): held as an int2[] or oid[] list, read
//! from and written as the elements separated by spaces (int2vectorin / int2vectorout).
//! The binder turns subscripts and bounds into those of the array they hold.

use super::{text_io, DataType, ScalarValue};
use crate::error::Result;
use crate::vector::{Vector, VectorData};

/// int2vectorin / oidvectorin: elements separated by white space, none NULL.
pub fn parse(text: &str, ty: DataType) -> Result<Vec<ScalarValue>> {
    let elements = text
        .split(|c: char| c.is_ascii_whitespace())
        .filter(|element| !element.is_empty());
    match ty {
        DataType::OidVector => elements
            .map(|e| text_io::parse_oid(e).map(ScalarValue::Int64))
            .collect(),
        _ => elements
            .map(|e| text_io::parse_i16(e).map(ScalarValue::Int16))
            .collect(),
    }
}

/// Writes row `row` of `column`, of type `ty`, in PostgreSQL's text format: the vector types
/// space-separated, every other type by its vector's own output. False (nothing written)
/// for NULL.
pub fn write_text(column: &Vector, row: usize, ty: Option<DataType>, out: &mut Vec<u8>) -> bool {
    let is_vector = matches!(ty, Some(DataType::Int2Vector | DataType::OidVector));
    let (true, VectorData::List(list)) = (is_vector, &column.data) else {
        return column.write_text(row, out);
    };
    if !column.is_valid(row) {
        return false;
    }
    let child = list.child();
    for (i, idx) in list.range(row).enumerate() {
        if i > 0 {
            out.push(b' ');
        }
        child.write_text(idx, out);
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vector::ListVec;

    #[test]
    fn text_round_trip() {
        let values = parse(" 3  1 2 ", DataType::Int2Vector).expect("valid int2vector");
        assert_eq!(
            values,
            vec![
                ScalarValue::Int16(3),
                ScalarValue::Int16(1),
                ScalarValue::Int16(2)
            ]
        );
        let mut list = ListVec::with_capacity(crate::types::PhysicalType::Int16, 1);
        list.push_values(&values).expect("int2 elements");
        let column = Vector::new(VectorData::List(list), None);
        let mut out = Vec::new();
        assert!(write_text(&column, 0, Some(DataType::Int2Vector), &mut out));
        assert_eq!(out, b"3 1 2");
        out.clear();
        assert!(write_text(
            &column,
            0,
            Some(DataType::Array(&DataType::Int16)),
            &mut out
        ));
        assert_eq!(out, b"{3,1,2}");
        assert!(parse("1,2", DataType::Int2Vector).is_err());
        assert!(parse("4294967296", DataType::OidVector).is_err());
        assert_eq!(parse("", DataType::OidVector).expect("empty"), vec![]);
    }
}
