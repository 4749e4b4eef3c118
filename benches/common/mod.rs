//! What the table benches share: reproducible randomness without `rand`.

#![allow(dead_code)]

/// splitmix64: the next number of the sequence `state` walks.
pub fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Shuffles `items` (Fisher-Yates), the same way on every run.
pub fn shuffle<T>(items: &mut [T]) {
    let mut state = 0x5eed;
    for i in (1..items.len()).rev() {
        let j = (splitmix(&mut state) % (i as u64 + 1)) as usize;
        items.swap(i, j);
    }
}
