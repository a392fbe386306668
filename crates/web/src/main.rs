//! The playground's entry point: installs the panic hook and renders the app.

fn main() {
    rvlab_web::start();
}
