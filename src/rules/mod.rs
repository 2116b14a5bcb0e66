//! Rules engines.
