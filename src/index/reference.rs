//! A deliberately naive matcher written straight from SPEC section 2, for
//! the differential test only: braces expanded as text, then plain
//! recursion over segments and characters. Slow and obviously correct;
//! shares no code with the automaton or the glob parser.

/// Whether `glob` matches the root-relative `path`.
pub fn matches(glob: &str, path: &str) -> bool {
    expand(glob).iter().any(|g| match_plain(g, path))
}

/// `{a,b}` alternates: expand the first group, recurse on each result.
fn expand(glob: &str) -> Vec<String> {
    let chars: Vec<char> = glob.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '\\' => i += 2,
            '[' => i = class_end(&chars, i),
            '{' => {
                let mut depth = 0;
                let mut parts = Vec::new();
                let mut start = i + 1;
                let mut j = i;
                while j < chars.len() {
                    match chars[j] {
                        '\\' => j += 1,
                        '[' => j = class_end(&chars, j) - 1,
                        '{' => depth += 1,
                        '}' => {
                            depth -= 1;
                            if depth == 0 {
                                parts.push(chars[start..j].iter().collect::<String>());
                                break;
                            }
                        }
                        ',' if depth == 1 => {
                            parts.push(chars[start..j].iter().collect::<String>());
                            start = j + 1;
                        }
                        _ => {}
                    }
                    j += 1;
                }
                let head: String = chars[..i].iter().collect();
                let tail: String = chars[j + 1..].iter().collect();
                return parts
                    .iter()
                    .flat_map(|p| expand(&format!("{head}{p}{tail}")))
                    .collect();
            }
            _ => i += 1,
        }
    }
    vec![glob.to_owned()]
}

/// Index just past the `]` closing the class that opens at `open`.
fn class_end(chars: &[char], open: usize) -> usize {
    let mut j = open + 1;
    if matches!(chars.get(j), Some('!' | '^')) {
        j += 1;
    }
    j += 1; // the first member may be `]`
    while j < chars.len() && chars[j] != ']' {
        j += 1;
    }
    j + 1
}

/// A glob without braces.
fn match_plain(glob: &str, path: &str) -> bool {
    let chars: Vec<char> = glob.chars().collect();
    let mut segs: Vec<Vec<char>> = vec![Vec::new()];
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '/' => segs.push(Vec::new()),
            '\\' => {
                segs.last_mut().unwrap().extend(&chars[i..i + 2]);
                i += 1;
            }
            '[' => {
                let end = class_end(&chars, i);
                segs.last_mut().unwrap().extend(&chars[i..end]);
                i = end - 1;
            }
            c => segs.last_mut().unwrap().push(c),
        }
        i += 1;
    }
    // A trailing `/` means everything under the directory, like `dir/**`.
    if segs.len() > 1 && segs.last().unwrap().is_empty() {
        *segs.last_mut().unwrap() = vec!['*', '*'];
    }
    let path: Vec<Vec<char>> = path.split('/').map(|s| s.chars().collect()).collect();
    match_segs(&segs, &path)
}

fn match_segs(glob: &[Vec<char>], path: &[Vec<char>]) -> bool {
    let Some((first, rest)) = glob.split_first() else {
        return path.is_empty();
    };
    if first.as_slice() == ['*', '*'] {
        // `**` spans any number of segments; ending the glob, at least one.
        if rest.is_empty() {
            return !path.is_empty();
        }
        return (0..=path.len()).any(|k| match_segs(rest, &path[k..]));
    }
    !path.is_empty() && match_seg(first, &path[0]) && match_segs(rest, &path[1..])
}

fn match_seg(g: &[char], s: &[char]) -> bool {
    let Some(&c) = g.first() else {
        return s.is_empty();
    };
    match c {
        '*' => (0..=s.len()).any(|k| match_seg(&g[1..], &s[k..])),
        '?' => !s.is_empty() && match_seg(&g[1..], &s[1..]),
        '\\' => s.first() == g.get(1) && match_seg(&g[2..], &s[1..]),
        '[' => {
            let end = class_end(g, 0);
            let Some(&x) = s.first() else { return false };
            class_has(&g[1..end - 1], x) && match_seg(&g[end..], &s[1..])
        }
        c => s.first() == Some(&c) && match_seg(&g[1..], &s[1..]),
    }
}

/// Class body (between the brackets): `!` or `^` negates, `a-z` ranges, a
/// `-` first or last is literal; never `/`.
fn class_has(body: &[char], x: char) -> bool {
    let (negated, body) = match body.first() {
        Some('!' | '^') => (true, &body[1..]),
        _ => (false, body),
    };
    let mut found = false;
    let mut i = 0;
    while i < body.len() {
        if i + 2 < body.len() && body[i + 1] == '-' {
            found |= body[i] <= x && x <= body[i + 2];
            i += 3;
        } else {
            found |= body[i] == x;
            i += 1;
        }
    }
    x != '/' && found != negated
}
