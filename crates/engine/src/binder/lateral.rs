//! What a LATERAL FROM item (a LATERAL subquery, or a function, implicitly lateral) may
//! read: the items left of it in its join, and the items left of that join in FROM's
//! comma list or in enclosing joins (`a, b JOIN LATERAL (... a.x, b.y ...) ss`), each as
//! one enclosing row. The caller learns which it read: each one read makes the join with
//! it a lateral join, run once per row of that item, so the rows stack up at run time in
//! the order the scopes were pushed here.

use super::scope::Scope;
use super::Binder;

/// The scopes a LATERAL item was given to read, to be taken back when it is bound.
pub(super) struct LateralEntry {
    left: Option<Scope>,
    further_left: usize,
}

impl Binder<'_> {
    /// Makes the items left of the FROM item about to be bound its enclosing rows.
    pub(super) fn enter_lateral(&mut self) -> LateralEntry {
        let left = self.lateral_scope.take();
        let further_left = match &left {
            Some(_) => self.lateral_outer.len(),
            None => 0,
        };
        if let Some(left) = &left {
            let further = self.lateral_outer.iter().map(|(s, _)| (s.clone(), false));
            self.outer_scopes.extend(further);
            self.outer_scopes.push((left.clone(), false));
        }
        LateralEntry { left, further_left }
    }

    /// Takes back what [`Binder::enter_lateral`] gave: `lateral_correlated` says whether
    /// the item read the items just left of it, `lateral_outer` which items further left
    /// it read. Returns the scope of the items just left of it.
    pub(super) fn leave_lateral(&mut self, entry: LateralEntry) -> Option<Scope> {
        if entry.left.is_some() {
            self.lateral_correlated = self.outer_scopes.pop().is_some_and(|(_, c)| c);
            for index in (0..entry.further_left).rev() {
                let read = self.outer_scopes.pop().is_some_and(|(_, c)| c);
                if let Some((_, flag)) = self.lateral_outer.get_mut(index) {
                    *flag |= read;
                }
            }
        }
        entry.left
    }
}
