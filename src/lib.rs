//! x
#![cfg_attr(not(feature = "std"), no_std)]
#![deny(missing_docs)]

extern crate alloc;

pub mod pending;

pub use pending::{Miss, PendingTable, TableFull, Token, VacantEntry};
