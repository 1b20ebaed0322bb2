//! A Hierarchical Navigable Small World graph (Malkov & Yashunin, 2016) over float4 vectors of
//! one length: each node is a vector and the row id it was taken from, linked to up to `m`
//! near nodes on each of its layers (`2 * m` on layer 0). A search descends greedily from the
//! top layer's entry point, then explores layer 0 best-first, keeping the `ef` nearest nodes
//! it accepts.
//!
//! The graph only grows: it never removes a node, so a node whose row was deleted or changed
//! stays a waypoint, and the caller's `accept` filter keeps it out of results.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// A distance between two vectors of the graph's length: smaller is nearer.
pub type Distance = fn(&[f32], &[f32]) -> f32;

/// Layers above this are never drawn (with m = 2 a level beyond 16 has odds below 2^-16).
const LEVEL_MAX: usize = 16;

pub struct HnswGraph {
    dims: usize,
    distance: Distance,
    /// Links per node on layers above 0.
    m: usize,
    /// Links per node on layer 0.
    m0: usize,
    ef_construction: usize,
    /// 1 / ln(m): the level distribution's scale.
    level_scale: f64,
    /// The state of the level generator (splitmix64), seeded so builds are repeatable.
    seed: u64,
    /// Node `n`'s vector is `vectors[n * dims..(n + 1) * dims]`.
    vectors: Vec<f32>,
    row_ids: Vec<u64>,
    /// Layer 0 links: node `n`'s are `layer0[n * m0..][..layer0_len[n]]`.
    layer0: Vec<u32>,
    layer0_len: Vec<u8>,
    /// Links on layers 1 and up, for the nodes drawn above layer 0: `upper[n][l - 1]`.
    upper: Vec<Vec<Vec<u32>>>,
    /// The node on the top layer, and that layer.
    entry: Option<(u32, usize)>,
    /// Reused by inserts (searches have their own).
    visited: Visited,
}

/// A node and its distance to the vector searched for, ordered by distance.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Neighbor {
    pub distance: f32,
    pub node: u32,
}

impl Eq for Neighbor {}

impl Ord for Neighbor {
    fn cmp(&self, other: &Self) -> Ordering {
        self.distance
            .total_cmp(&other.distance)
            .then(self.node.cmp(&other.node))
    }
}

impl PartialOrd for Neighbor {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// The nodes one search has reached: a generation stamp per node, so clearing is O(1).
#[derive(Default)]
struct Visited {
    stamps: Vec<u32>,
    generation: u32,
}

impl Visited {
    fn clear(&mut self, nodes: usize) {
        self.stamps.resize(nodes, 0);
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            self.stamps.fill(0);
            self.generation = 1;
        }
    }

    /// Marks `node`; false when it was already marked.
    fn insert(&mut self, node: u32) -> bool {
        let stamp = &mut self.stamps[node as usize];
        let fresh = *stamp != self.generation;
        *stamp = self.generation;
        fresh
    }
}

impl HnswGraph {
    /// An empty graph; `m >= 2` and `ef_construction >= 1` (CREATE INDEX checks the ranges).
    pub fn new(dims: usize, distance: Distance, m: usize, ef_construction: usize) -> HnswGraph {
        let m = m.max(2);
        HnswGraph {
            dims,
            distance,
            m,
            m0: 2 * m,
            ef_construction: ef_construction.max(1),
            level_scale: 1.0 / (m as f64).ln(),
            seed: 0x5eed_4e53_77a1_0001,
            vectors: Vec::new(),
            row_ids: Vec::new(),
            layer0: Vec::new(),
            layer0_len: Vec::new(),
            upper: Vec::new(),
            entry: None,
            visited: Visited::default(),
        }
    }

    pub fn len(&self) -> usize {
        self.row_ids.len()
    }

    pub fn dims(&self) -> usize {
        self.dims
    }

    pub fn vector(&self, node: u32) -> &[f32] {
        let start = node as usize * self.dims;
        &self.vectors[start..start + self.dims]
    }

    pub fn row_id(&self, node: u32) -> u64 {
        self.row_ids[node as usize]
    }

    fn links(&self, node: u32, layer: usize) -> &[u32] {
        if layer == 0 {
            let start = node as usize * self.m0;
            &self.layer0[start..start + self.layer0_len[node as usize] as usize]
        } else {
            &self.upper[node as usize][layer - 1]
        }
    }

    fn set_links(&mut self, node: u32, layer: usize, links: &[u32]) {
        if layer == 0 {
            let start = node as usize * self.m0;
            self.layer0[start..start + links.len()].copy_from_slice(links);
            self.layer0_len[node as usize] = links.len() as u8;
        } else {
            let list = &mut self.upper[node as usize][layer - 1];
            list.clear();
            list.extend_from_slice(links);
        }
    }

    fn neighbor(&self, query: &[f32], node: u32) -> Neighbor {
        Neighbor {
            distance: (self.distance)(query, self.vector(node)),
            node,
        }
    }

    /// A level drawn from the exponential distribution of the paper: floor(-ln(U) / ln(m)).
    fn random_level(&mut self) -> usize {
        self.seed = self.seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.seed;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        // A uniform in (0, 1]: never 0, whose logarithm is infinite.
        let uniform = ((z >> 11) as f64 + 1.0) / (1u64 << 53) as f64;
        ((-uniform.ln() * self.level_scale) as usize).min(LEVEL_MAX)
    }

    /// Adds `vector` (of `dims` elements) for row `row_id`.
    pub fn insert(&mut self, row_id: u64, vector: &[f32]) {
        debug_assert_eq!(vector.len(), self.dims);
        let node = self.row_ids.len() as u32;
        let level = self.random_level();
        self.vectors.extend_from_slice(vector);
        self.row_ids.push(row_id);
        self.layer0.resize(self.layer0.len() + self.m0, 0);
        self.layer0_len.push(0);
        self.upper.push(vec![Vec::new(); level]);
        let Some((entry, top)) = self.entry else {
            self.entry = Some((node, level));
            return;
        };
        let mut nearest = vec![self.neighbor(vector, entry)];
        for layer in (level + 1..=top).rev() {
            nearest = vec![self.greedy(vector, nearest[0], layer)];
        }
        let mut visited = std::mem::take(&mut self.visited);
        for layer in (0..=level.min(top)).rev() {
            visited.clear(self.len());
            let found = self.search_layer(
                vector,
                &nearest,
                self.ef_construction,
                layer,
                &mut visited,
                &|_| true,
            );
            let links_max = if layer == 0 { self.m0 } else { self.m };
            let links = self.select(&found, self.m);
            self.set_links(node, layer, &links);
            for &other in &links {
                self.link(other, node, layer, links_max);
            }
            nearest = found;
        }
        self.visited = visited;
        if level > top {
            self.entry = Some((node, level));
        }
    }

    /// Adds a link from `from` to `to` on `layer`, pruning `from`'s links with the heuristic
    /// when they exceed `links_max`.
    fn link(&mut self, from: u32, to: u32, layer: usize, links_max: usize) {
        let current = self.links(from, layer);
        if current.len() < links_max {
            let mut grown = current.to_vec();
            grown.push(to);
            self.set_links(from, layer, &grown);
            return;
        }
        let base = self.vector(from);
        let mut candidates: Vec<Neighbor> = current
            .iter()
            .chain(std::iter::once(&to))
            .map(|&n| self.neighbor(base, n))
            .collect();
        candidates.sort_unstable();
        let kept = self.select(&candidates, links_max);
        self.set_links(from, layer, &kept);
    }

    /// The paper's neighbour selection heuristic: from candidates in ascending distance, keep
    /// one only if it is nearer to the base than to every one kept so far, so links spread
    /// in several directions instead of clustering.
    fn select(&self, candidates: &[Neighbor], count: usize) -> Vec<u32> {
        let mut kept: Vec<u32> = Vec::with_capacity(count);
        for candidate in candidates {
            if kept.len() == count {
                break;
            }
            let vector = self.vector(candidate.node);
            let diverse = kept
                .iter()
                .all(|&k| (self.distance)(vector, self.vector(k)) > candidate.distance);
            if diverse {
                kept.push(candidate.node);
            }
        }
        kept
    }

    /// The nearest node to `query` reachable from `start` by greedy steps on `layer`.
    fn greedy(&self, query: &[f32], start: Neighbor, layer: usize) -> Neighbor {
        let mut best = start;
        loop {
            let closer = self
                .links(best.node, layer)
                .iter()
                .map(|&n| self.neighbor(query, n))
                .filter(|n| *n < best)
                .min();
            match closer {
                Some(next) => best = next,
                None => return best,
            }
        }
    }

    /// Best-first search of `layer` from `starts`: the `ef` nearest accepted nodes found, in
    /// ascending distance. Nodes that `accept` refuses are explored but never returned.
    fn search_layer(
        &self,
        query: &[f32],
        starts: &[Neighbor],
        ef: usize,
        layer: usize,
        visited: &mut Visited,
        accept: &dyn Fn(u32) -> bool,
    ) -> Vec<Neighbor> {
        let mut candidates: BinaryHeap<std::cmp::Reverse<Neighbor>> = BinaryHeap::new();
        let mut found: BinaryHeap<Neighbor> = BinaryHeap::new();
        for &start in starts {
            if visited.insert(start.node) {
                candidates.push(std::cmp::Reverse(start));
                if accept(start.node) {
                    found.push(start);
                }
            }
        }
        while found.len() > ef {
            found.pop();
        }
        while let Some(std::cmp::Reverse(nearest)) = candidates.pop() {
            if found.len() == ef && found.peek().is_some_and(|worst| nearest > *worst) {
                break;
            }
            for &next in self.links(nearest.node, layer) {
                if !visited.insert(next) {
                    continue;
                }
                let neighbor = self.neighbor(query, next);
                if found.len() < ef || found.peek().is_some_and(|worst| neighbor < *worst) {
                    candidates.push(std::cmp::Reverse(neighbor));
                    if accept(next) {
                        found.push(neighbor);
                        if found.len() > ef {
                            found.pop();
                        }
                    }
                }
            }
        }
        found.into_sorted_vec()
    }

    /// Up to `ef` accepted nodes nearest to `query`, in ascending distance. Fewer than `ef`
    /// means the search ran out of nodes to explore: every accepted node reachable from the
    /// entry point is among them.
    pub fn search(&self, query: &[f32], ef: usize, accept: &dyn Fn(u32) -> bool) -> Vec<Neighbor> {
        let Some((entry, top)) = self.entry else {
            return Vec::new();
        };
        let mut nearest = self.neighbor(query, entry);
        for layer in (1..=top).rev() {
            nearest = self.greedy(query, nearest, layer);
        }
        let mut visited = Visited::default();
        visited.clear(self.len());
        self.search_layer(query, &[nearest], ef.max(1), 0, &mut visited, accept)
    }
}

#[cfg(test)]
mod tests {
    use super::HnswGraph;
    use crate::function::vector_kernels::l2_squared;

    /// A repeatable stream of uniform floats in [0, 1).
    fn uniform(seed: &mut u64) -> f32 {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        (*seed >> 40) as f32 / (1u64 << 24) as f32
    }

    #[test]
    fn recall_at_10_on_10k_random_vectors() {
        const ROWS: usize = 10_000;
        const DIMS: usize = 16;
        const QUERIES: usize = 100;
        let mut seed = 42u64;
        let data: Vec<f32> = (0..ROWS * DIMS).map(|_| uniform(&mut seed)).collect();
        let mut graph = HnswGraph::new(DIMS, l2_squared, 16, 64);
        for (row, vector) in data.chunks_exact(DIMS).enumerate() {
            graph.insert(row as u64, vector);
        }
        let mut hits = 0;
        for _ in 0..QUERIES {
            let query: Vec<f32> = (0..DIMS).map(|_| uniform(&mut seed)).collect();
            let mut exact: Vec<(f32, u64)> = data
                .chunks_exact(DIMS)
                .enumerate()
                .map(|(row, v)| (l2_squared(&query, v), row as u64))
                .collect();
            exact.sort_by(|a, b| a.0.total_cmp(&b.0));
            let truth: Vec<u64> = exact[..10].iter().map(|e| e.1).collect();
            // hnsw.ef_search's default.
            let found = graph.search(&query, 40, &|_| true);
            hits += found
                .iter()
                .take(10)
                .filter(|n| truth.contains(&graph.row_id(n.node)))
                .count();
        }
        let recall = hits as f64 / (QUERIES * 10) as f64;
        assert!(recall >= 0.95, "recall@10 {recall}");
    }

    #[test]
    fn a_search_wider_than_the_graph_finds_every_accepted_node() {
        let mut graph = HnswGraph::new(2, l2_squared, 2, 4);
        for i in 0..50u64 {
            graph.insert(i, &[i as f32, (i % 7) as f32]);
        }
        let found = graph.search(&[10.0, 3.0], 100, &|node| node % 2 == 0);
        assert_eq!(found.len(), 25);
        assert!(found.windows(2).all(|w| w[0] <= w[1]));
        assert_eq!(graph.row_id(found[0].node), 10);
    }
}
