//! Ready-made hooks, behaving as Haystack 3.4.1's.

mod token_budget;

pub use token_budget::TokenBudgetHook;
