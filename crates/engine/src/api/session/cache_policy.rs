//! When the shared plan and result caches may serve the session, and serving a
//! statement from them (the simple and extended protocols alike).

use super::{Block, Session, Work};
use crate::api::copy::CopyChannel;
use crate::api::query_cache::CacheKey;
use crate::api::StatementResult;
use crate::error::Result;
use crate::types::DataType;

impl Session {
    /// Whether the shared caches may serve this session now: not while its transaction has
    /// uncommitted writes (they are invisible to the caches), nor in a failed block, nor with
    /// optimizer rules switched off.
    pub(super) fn caches_usable(&self) -> bool {
        self.block != Block::Failed
            && self.txn.as_ref().is_none_or(|t| !t.has_writes())
            && self
                .settings
                .value("kestrel.disabled_optimizer_rules")
                .is_some_and(str::is_empty)
    }

    pub(super) fn result_cache_on(&self) -> bool {
        self.settings.value("kestrel.result_cache") == Some("on")
    }

    /// The statement `key` names answered from the caches: its cached result (only when
    /// `results`: a statement that may just read), else its cached plan run with
    /// `key.params`. `None` when the caches hold neither or may not serve the session now.
    pub(super) fn run_cached(
        &mut self,
        key: CacheKey<'_>,
        results: bool,
        param_types: &[DataType],
        copy: &mut dyn CopyChannel,
    ) -> Option<Result<StatementResult>> {
        if !self.caches_usable() {
            return None;
        }
        let view = self.view();
        if results && self.result_cache_on() {
            if let Some(result) = self.cache.result(&key.result_key(), &view) {
                return Some(Ok(result));
            }
        }
        let bound = self.cache.plan(&key, param_types, view.catalog_version)?;
        let work = Work::Bound(Box::new(bound));
        Some(self.run(work, param_types, key.params, Some(key), copy))
    }
}
