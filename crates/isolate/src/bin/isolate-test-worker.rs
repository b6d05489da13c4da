//! A worker that does what its request says, including the things a hostile file makes a
//! parser do: recurse without end, allocate without end, spin. Used by this crate's tests.

use std::process::ExitCode;

use isolate::Frame;

fn recurse(depth: u64) -> u64 {
    let frame = [depth; 64];
    if depth == u64::MAX {
        return 0;
    }
    std::hint::black_box(&frame);
    recurse(depth + 1) + std::hint::black_box(frame[1])
}

fn main() -> ExitCode {
    isolate::worker::serve(|command: String, blob: Vec<u8>| match command.as_str() {
        "echo" => Frame {
            header: "echo".to_owned(),
            blob,
        },
        "pid" => Frame {
            header: std::process::id().to_string(),
            blob: Vec::new(),
        },
        "stdout" => {
            // A library that prints must not corrupt the protocol.
            println!("noise on standard output");
            Frame {
                header: "printed".to_owned(),
                blob,
            }
        }
        "recurse" => Frame {
            header: recurse(0).to_string(),
            blob: Vec::new(),
        },
        "allocate" => {
            let mut held: Vec<Vec<u8>> = Vec::new();
            loop {
                held.push(vec![1u8; 64 * 1024 * 1024]);
                std::hint::black_box(&held);
            }
        }
        "spin" => {
            let mut x = 0u64;
            loop {
                x = std::hint::black_box(x.wrapping_add(1));
            }
        }
        "sleep" => {
            std::thread::sleep(std::time::Duration::from_secs(3600));
            Frame {
                header: "woke".to_owned(),
                blob: Vec::new(),
            }
        }
        other => Frame {
            header: format!("unknown command {other}"),
            blob: Vec::new(),
        },
    })
}
