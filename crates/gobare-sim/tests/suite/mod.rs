mod api;
mod fleet;
mod fuzz;
mod import_cycles;
mod production;
mod stream;
