fn main() {
    println!("gobare-tui: under construction");
}
