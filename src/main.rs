fn main() {
    println!("engine: under construction");
}
