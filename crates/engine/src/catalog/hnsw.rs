//! What CREATE INDEX ... USING hnsw records: the operator class, which names the distance the
//! index orders by, and the graph's build options, as pgvector spells them.

use crate::function::VectorFunction;

/// pgvector's operator classes for `vector` under hnsw: each answers one distance operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum VectorOpClass {
    /// vector_l2_ops: `<->`.
    L2,
    /// vector_ip_ops: `<#>`.
    InnerProduct,
    /// vector_cosine_ops: `<=>`.
    Cosine,
    /// vector_l1_ops: `<+>`.
    L1,
}

impl VectorOpClass {
    pub const ALL: [VectorOpClass; 4] = [
        VectorOpClass::L2,
        VectorOpClass::InnerProduct,
        VectorOpClass::Cosine,
        VectorOpClass::L1,
    ];

    pub fn name(self) -> &'static str {
        match self {
            VectorOpClass::L2 => "vector_l2_ops",
            VectorOpClass::InnerProduct => "vector_ip_ops",
            VectorOpClass::Cosine => "vector_cosine_ops",
            VectorOpClass::L1 => "vector_l1_ops",
        }
    }

    pub fn from_name(name: &str) -> Option<VectorOpClass> {
        Self::ALL.into_iter().find(|c| c.name() == name)
    }

    /// The distance `ORDER BY column <op> query` must compute for the index to answer it.
    pub fn distance(self) -> VectorFunction {
        match self {
            VectorOpClass::L2 => VectorFunction::L2Distance,
            VectorOpClass::InnerProduct => VectorFunction::NegativeInnerProduct,
            VectorOpClass::Cosine => VectorFunction::CosineDistance,
            VectorOpClass::L1 => VectorFunction::L1Distance,
        }
    }
}

/// An hnsw index's operator class and WITH options.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct HnswOptions {
    pub opclass: VectorOpClass,
    /// As WITH gave them, `None` when left out: pg_get_indexdef prints only those given.
    pub m: Option<u16>,
    pub ef_construction: Option<u16>,
}

impl HnswOptions {
    /// pgvector's defaults and bounds.
    pub const M_DEFAULT: u16 = 16;
    pub const M_RANGE: (u16, u16) = (2, 100);
    pub const EF_CONSTRUCTION_DEFAULT: u16 = 64;
    pub const EF_CONSTRUCTION_RANGE: (u16, u16) = (4, 1000);
    /// The most dimensions a column indexed by hnsw may have.
    pub const DIMS_MAX: usize = 2000;

    /// Links per node (twice as many on the bottom layer).
    pub fn m(&self) -> usize {
        usize::from(self.m.unwrap_or(Self::M_DEFAULT))
    }

    /// Candidates kept while linking a new node.
    pub fn ef_construction(&self) -> usize {
        usize::from(
            self.ef_construction
                .unwrap_or(Self::EF_CONSTRUCTION_DEFAULT),
        )
    }

    /// The options as pg_get_indexdef prints them after WITH, if any were given.
    pub fn reloptions(&self) -> Vec<String> {
        let mut options = Vec::new();
        if let Some(m) = self.m {
            options.push(format!("m='{m}'"));
        }
        if let Some(ef) = self.ef_construction {
            options.push(format!("ef_construction='{ef}'"));
        }
        options
    }
}
