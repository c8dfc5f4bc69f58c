mod api;
mod fuzz;
mod import_cycles;
mod stream;
