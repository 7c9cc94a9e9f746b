// Rust whose hot code is inlined, for the profiler's inlined-frame tests:
// lookups in a BTreeMap of Strings (search_tree, search_node, the slices'
// cmp inlined into lookup_strings), in a HashMap of integers (hashbrown's
// find inlined into lookup_ints) and sort_unstable (into sort_ints).
// Built with rustc -O -g.
//   inline [SECONDS]    (default 1 second of wall time)
use std::collections::{BTreeMap, HashMap};
use std::time::{Duration, Instant};

#[inline(never)]
fn lookup_strings(m: &BTreeMap<String, u64>, keys: &[String]) -> u64 {
    let mut s = 0;
    for k in keys {
        if let Some(v) = m.get(k) {
            s += *v;
        }
    }
    s
}

#[inline(never)]
fn lookup_ints(m: &HashMap<u64, u64>, n: u64) -> u64 {
    let mut s = 0;
    for i in 0..n {
        if let Some(v) = m.get(&(i * 7)) {
            s += *v;
        }
    }
    s
}

// sorts a copy in w (no allocation: page faults would make its share vary
// from run to run)
#[inline(never)]
fn sort_ints(v: &[u32], w: &mut [u32]) -> u32 {
    w.copy_from_slice(v);
    w.sort_unstable();
    w[w.len() / 2]
}

fn main() {
    let secs: f64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(1.0);
    let mut sm = BTreeMap::new();
    let mut keys = Vec::new();
    for i in 0..2000u64 {
        let k = format!("a-common-prefix-for-every-key/{}", i * 7919 % 10007);
        sm.insert(k.clone(), i);
        keys.push(k);
    }
    let mut um = HashMap::new();
    for i in 0..100000u64 {
        um.insert(i * 13, i);
    }
    let mut x: u32 = 1;
    let v: Vec<u32> = (0..20000)
        .map(|_| {
            x = x.wrapping_mul(1103515245).wrapping_add(12345);
            x
        })
        .collect();
    let mut w = v.clone();
    let end = Instant::now() + Duration::from_secs_f64(secs);
    let mut sum = 0u64;
    while Instant::now() < end {
        sum = sum.wrapping_add(lookup_strings(&sm, &keys));
        sum = sum.wrapping_add(lookup_ints(&um, 20000));
        sum = sum.wrapping_add(sort_ints(&v, &mut w) as u64);
    }
    println!("{}", sum);
}
