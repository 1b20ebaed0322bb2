//! Per-role and per-database settings (PostgreSQL's pg_db_role_setting): what ALTER ROLE
//! ... SET keeps and a session starting applies, each as `name=value` text, as
//! PostgreSQL's setconfig holds it. Kept with the role catalog, so it is staged, logged
//! and locked with the roles.

use std::collections::BTreeMap;

/// The role or database a setting applies to all of (pg_db_role_setting's 0).
pub const ALL: u32 = 0;

/// The settings by (database OID, role OID), either `ALL`; none is empty.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RoleSettings(pub BTreeMap<(u32, u32), Vec<String>>);

impl RoleSettings {
    /// Sets `name` to `value` for (`database`, `role`), in the place an earlier value
    /// had (PostgreSQL's GUCArrayAdd).
    pub fn set(&mut self, database: u32, role: u32, name: &str, value: &str) {
        let entry = self.0.entry((database, role)).or_default();
        let item = format!("{name}={value}");
        match entry.iter_mut().find(|i| setting_name(i) == name) {
            Some(old) => *old = item,
            None => entry.push(item),
        }
    }

    /// Forgets `name` for (`database`, `role`); every setting there with `None`.
    pub fn reset(&mut self, database: u32, role: u32, name: Option<&str>) {
        if let Some(entry) = self.0.get_mut(&(database, role)) {
            entry.retain(|item| name.is_some_and(|n| setting_name(item) != n));
            if entry.is_empty() {
                self.0.remove(&(database, role));
            }
        }
    }

    /// Forgets the settings of a role that is dropped.
    pub fn drop_role(&mut self, role: u32) {
        self.0.retain(|(_, r), _| *r != role);
    }

    /// What a session of `role` in `database` starts with: the most specific setting of
    /// each name wins (database and role, then role, then database, then everyone), as
    /// PostgreSQL's process_settings applies them.
    /// Each comes with its source as pg_settings names it.
    pub fn for_session(&self, database: u32, role: u32) -> Vec<(String, String, &'static str)> {
        let mut applied: Vec<(String, String, &'static str)> = Vec::new();
        for (key, source) in [
            ((database, role), "database user"),
            ((ALL, role), "user"),
            ((database, ALL), "database"),
            ((ALL, ALL), "global"),
        ] {
            for item in self.0.get(&key).into_iter().flatten() {
                let (name, value) = item.split_once('=').unwrap_or((item, ""));
                if !applied.iter().any(|(n, ..)| n == name) {
                    applied.push((name.to_string(), value.to_string(), source));
                }
            }
        }
        applied
    }
}

fn setting_name(item: &str) -> &str {
    item.split_once('=').map_or(item, |(name, _)| name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_most_specific_setting_wins() {
        let mut settings = RoleSettings::default();
        settings.set(ALL, ALL, "work_mem", "1MB");
        settings.set(5, ALL, "work_mem", "2MB");
        settings.set(ALL, 100, "work_mem", "3MB");
        settings.set(ALL, 100, "search_path", "a, b");
        settings.set(ALL, 100, "work_mem", "4MB");
        assert_eq!(
            settings.0[&(ALL, 100)],
            ["work_mem=4MB", "search_path=a, b"]
        );
        let session = settings.for_session(5, 100);
        assert_eq!(
            session,
            [
                ("work_mem".to_string(), "4MB".to_string(), "user"),
                ("search_path".to_string(), "a, b".to_string(), "user")
            ]
        );
        assert_eq!(settings.for_session(5, 101)[0].1, "2MB");
        settings.reset(ALL, 100, Some("work_mem"));
        settings.reset(ALL, 100, Some("search_path"));
        assert!(!settings.0.contains_key(&(ALL, 100)));
        settings.reset(5, ALL, None);
        settings.drop_role(ALL);
        assert!(settings.0.is_empty());
    }
}
