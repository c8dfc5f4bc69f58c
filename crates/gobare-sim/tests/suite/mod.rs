mod api;
mod fleet;
mod fuzz;
mod import_cycles;
mod stream;
