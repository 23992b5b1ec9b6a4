//! Semantic-version bumps of a map's `version`.

use rdmagen_regmap::Version;

/// How much a version must grow. Ordered: a larger bump covers a smaller one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Bump {
    /// Text only (descriptions).
    Patch,
    /// Compatible additions.
    Minor,
    /// Breaking changes.
    Major,
}

impl Bump {
    pub fn as_str(self) -> &'static str {
        match self {
            Bump::Patch => "patch",
            Bump::Minor => "minor",
            Bump::Major => "major",
        }
    }
}

/// The lowest version after `old` that carries a `bump`. Below 1.0.0 everything shifts one
/// place right, as Cargo reads 0.x versions: a breaking change bumps the minor number and an
/// addition or a text change bumps the patch number.
pub fn required_version(old: Version, bump: Bump) -> Version {
    let Version {
        major,
        minor,
        patch,
    } = old;
    let v = |major, minor, patch| Version {
        major,
        minor,
        patch,
    };
    match (major, bump) {
        (0, Bump::Major) => v(0, minor + 1, 0),
        (0, Bump::Minor | Bump::Patch) => v(0, minor, patch + 1),
        (_, Bump::Major) => v(major + 1, 0, 0),
        (_, Bump::Minor) => v(major, minor + 1, 0),
        (_, Bump::Patch) => v(major, minor, patch + 1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(major: u64, minor: u64, patch: u64) -> Version {
        Version {
            major,
            minor,
            patch,
        }
    }

    #[test]
    fn bumps_from_one_dot_x() {
        assert_eq!(required_version(v(1, 2, 3), Bump::Major), v(2, 0, 0));
        assert_eq!(required_version(v(1, 2, 3), Bump::Minor), v(1, 3, 0));
        assert_eq!(required_version(v(1, 2, 3), Bump::Patch), v(1, 2, 4));
    }

    #[test]
    fn bumps_below_one_shift_right() {
        assert_eq!(required_version(v(0, 3, 1), Bump::Major), v(0, 4, 0));
        assert_eq!(required_version(v(0, 3, 1), Bump::Minor), v(0, 3, 2));
        assert_eq!(required_version(v(0, 3, 1), Bump::Patch), v(0, 3, 2));
        // Going to 1.0.0 satisfies any bump from 0.x.
        assert!(v(1, 0, 0) >= required_version(v(0, 3, 1), Bump::Major));
    }
}
