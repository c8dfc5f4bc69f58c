mod api;
mod fleet;
mod functions;
mod fuzz;
mod import_cycles;
mod policy;
mod production;
mod stream;
