//! The session's date/time settings as the engine uses them: TimeZone parsed into a
//! [`Zone`] and DateStyle/IntervalStyle (with bytea_output, the other output style) into
//! [`Styles`] once per change, installed on the calling thread before each statement
//! (see [`crate::types::timezone`]), and a tag naming them in the plan and result caches.

use std::sync::Arc;

use super::Session;
use crate::error::Result;
use crate::types::datetime_style::{self, Styles};
use crate::types::timezone::{self, Zone};

/// The TimeZone, DateStyle, IntervalStyle and bytea_output a session's statements run with.
pub(super) struct DateTimeSettings {
    zone: Arc<Zone>,
    styles: Styles,
    /// All four joined: literals are read and values shown differently under others.
    pub(super) tag: String,
}

impl Session {
    /// The session's date/time settings, installed on this thread for the statement about
    /// to run and for the encoding of its results.
    pub(super) fn datetime(&self) -> Result<Arc<DateTimeSettings>> {
        let zone = self.settings.value("TimeZone").unwrap_or("UTC");
        let date_style = self.settings.value("DateStyle").unwrap_or("ISO, MDY");
        let interval_style = self.settings.value("IntervalStyle").unwrap_or("postgres");
        let bytea_output = self.settings.value("bytea_output").unwrap_or("hex");
        let tag = format!("{zone}\u{0}{date_style}\u{0}{interval_style}\u{0}{bytea_output}");
        let cached = self.datetime.borrow().clone();
        let settings = match cached {
            Some(settings) if settings.tag == tag => settings,
            _ => {
                let settings = Arc::new(DateTimeSettings {
                    zone: Arc::new(Zone::from_setting(zone)?),
                    styles: Styles::from_settings(date_style, interval_style, bytea_output)?,
                    tag,
                });
                *self.datetime.borrow_mut() = Some(settings.clone());
                settings
            }
        };
        timezone::install(&settings.zone);
        datetime_style::install(settings.styles);
        Ok(settings)
    }
}
