//! Maps of the format whose keys are listed in a table ([`key_table`]):
//! a tool entry (`tool/`) and `agent` (`agent/`).

/// The table of a map's keys: each key, the type of its value, and whether
/// the map must give it (`required`) or may leave it at its default
/// (`optional`, which the writer then leaves out). Each key has a module
/// of its name, beside the table, holding its value's `read(&Field) ->
/// Read<T>`, `default() -> T` (an optional key), `write(&T) -> Value` and
/// `schema() -> Value`.
///
/// It defines the struct, one public field per key in the table's order
/// (and the `others` the map holds apart from the table, each with its
/// default), and, for the module that holds the table:
/// - `defaults()`: every key at its default (a required one at its type's),
/// - `read_keys(&mut MapReader)`: the keys given, read in the table's
///   order, the others at their defaults, so that an unknown key lists the
///   table's keys, in its order, with a typo's hint,
/// - `write_keys(&mut Map)`: required keys, then the others unless at their
///   default, in the table's order,
/// - `key_schemas()`: the required keys and each key's schema, in the
///   table's order.
macro_rules! key_table {
    (
        $(#[$attr:meta])*
        pub struct $name:ident {
            $($(#[doc = $doc:literal])* $key:ident: $ty:ty, $presence:ident;)*
        }
        $(others {
            $($(#[doc = $other_doc:literal])* $other:ident: $other_ty:ty = $other_default:expr;)*
        })?
    ) => {
        $(#[$attr])*
        pub struct $name {
            $($(#[doc = $doc])* pub $key: $ty,)*
            $($($(#[doc = $other_doc])* pub $other: $other_ty,)*)?
        }

        impl $name {
            /// Every key at its default (a required one at its type's).
            fn defaults() -> Self {
                $name {
                    $($key: key_table!(@default $presence, $key),)*
                    $($($other: $other_default,)*)?
                }
            }

            /// The table's keys given in `map`, read in the table's order.
            fn read_keys(
                map: &mut $crate::scenario::reading::MapReader<'_>,
            ) -> $crate::scenario::reading::Read<Self> {
                Ok($name {
                    $($key: key_table!(@read $presence, $key, map),)*
                    $($($other: $other_default,)*)?
                })
            }

            /// The table's keys as the file writes them.
            fn write_keys(&self, out: &mut ::serde_json::Map<String, ::serde_json::Value>) {
                $(key_table!(@write $presence, $key, self, out);)*
            }

            /// The required keys, and each key's schema.
            fn key_schemas() -> (
                Vec<&'static str>,
                ::serde_json::Map<String, ::serde_json::Value>,
            ) {
                let required = [$(key_table!(@required $presence, $key)),*];
                let mut properties = ::serde_json::Map::new();
                $(properties.insert(stringify!($key).into(), $key::schema());)*
                (required.into_iter().flatten().collect(), properties)
            }
        }
    };
    (@default required, $key:ident) => { Default::default() };
    (@default optional, $key:ident) => { $key::default() };
    (@read required, $key:ident, $map:ident) => {
        $key::read(&$map.required(stringify!($key))?)?
    };
    (@read optional, $key:ident, $map:ident) => {
        match $map.get(stringify!($key)) {
            Some(field) => $key::read(&field)?,
            None => $key::default(),
        }
    };
    (@write required, $key:ident, $value:ident, $out:ident) => {
        $out.insert(stringify!($key).into(), $key::write(&$value.$key));
    };
    (@write optional, $key:ident, $value:ident, $out:ident) => {
        if $value.$key != $key::default() {
            $out.insert(stringify!($key).into(), $key::write(&$value.$key));
        }
    };
    (@required required, $key:ident) => { Some(stringify!($key)) };
    (@required optional, $key:ident) => { None };
}

pub(super) use key_table;
