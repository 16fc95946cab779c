//! Jinja2's `Macro` (`jinja2.runtime.Macro`): how a call of a macro binds
//! its arguments, and the attributes a template reads of it.
//!
//! minijinja's macro takes its default for an argument given as undefined
//! (`f(missing)`), refuses arguments past its signature, and reads no
//! `varargs` or `kwargs`. The parser therefore gives each macro the
//! parameters `kwargs` and `varargs` its body reads (Jinja2's
//! `catch_kwargs` and `catch_varargs`), and follows its definition with
//! `{% set f = __py_macro(f, ...) %}` ([`MACRO_FUNCTION`]): this object,
//! whose call binds the arguments as `Macro.__call__` does and calls
//! minijinja's macro with them. An argument given as undefined where the
//! signature has a default reaches the macro as [`GivenUndefined`], which
//! minijinja does not replace by the default, and which the first
//! statements of the body turn back into the undefined value
//! (`{% set x = __py_given(x) %}`, [`GIVEN_FUNCTION`]).

use super::pystr::type_error;
use crate::pyfmt;
use indexmap::IndexMap;
use minijinja::value::{Enumerator, Kwargs, Object, ObjectRepr, Rest, Tuple, Value as JinjaValue};
use minijinja::{Error, State};
use serde_json::Value;
use std::sync::Arc;

/// The function a macro's definition is wrapped by:
/// `__py_macro(f, name, arguments, defaults, catch_kwargs, catch_varargs, caller)`.
pub(crate) const MACRO_FUNCTION: &str = "__py_macro";

/// The function that gives back the undefined value an argument was given
/// as ([`GivenUndefined`]), any other value as it is.
pub(crate) const GIVEN_FUNCTION: &str = "__py_given";

/// An argument given as undefined where the signature has a default: not
/// undefined to minijinja, so that it keeps it.
#[derive(Debug)]
struct GivenUndefined;

impl Object for GivenUndefined {}

/// A macro as Jinja2 holds it.
#[derive(Debug)]
struct Macro {
    /// minijinja's macro: the declared arguments, then `kwargs` and
    /// `varargs` when the body reads them.
    inner: JinjaValue,
    name: String,
    arguments: Vec<String>,
    /// How many of the last arguments have a default.
    defaults: usize,
    catch_kwargs: bool,
    catch_varargs: bool,
    /// Whether the body reads `caller`.
    caller: bool,
}

/// `macro {name!r} ...`: Jinja2's `TypeError` for a call it refuses.
fn refused(name: &str, text: String) -> Error {
    type_error(format!("macro {} {text}", pyfmt::repr(&Value::from(name))))
}

impl Macro {
    /// The arguments of minijinja's macro for a call with `args`, bound as
    /// `Macro.__call__` binds them.
    fn bind(&self, args: &[JinjaValue]) -> Result<Vec<JinjaValue>, Error> {
        let (Rest(positional), kwargs): (Rest<JinjaValue>, Kwargs) =
            minijinja::value::from_args(args)?;
        let mut keywords: IndexMap<String, JinjaValue> = IndexMap::new();
        for key in kwargs.args() {
            keywords.insert(key.to_owned(), kwargs.peek::<JinjaValue>(key)?);
        }
        let count = self.arguments.len();
        let with_default = count - self.defaults;
        let mut bound = Vec::with_capacity(count + 3);
        let mut found_caller = false;
        for (index, name) in self.arguments.iter().enumerate() {
            let given = match positional.get(index) {
                Some(value) => Some(value.clone()),
                None => {
                    found_caller |= name == "caller";
                    keywords.shift_remove(name)
                }
            };
            bound.push(match given {
                // minijinja's macro takes the default for an undefined value.
                None => JinjaValue::UNDEFINED,
                Some(value) if value.is_undefined() && index >= with_default => {
                    JinjaValue::from_object(GivenUndefined)
                }
                Some(value) => value,
            });
        }
        if positional.len() >= count {
            found_caller = self.arguments.iter().any(|a| a == "caller");
        }
        let caller = (self.caller && !found_caller).then(|| {
            keywords
                .shift_remove("caller")
                .filter(|caller| !caller.is_none())
                .unwrap_or(JinjaValue::UNDEFINED)
        });
        if self.catch_kwargs {
            let dict: IndexMap<JinjaValue, JinjaValue> = keywords
                .into_iter()
                .map(|(key, value)| (JinjaValue::from(key), value))
                .collect();
            bound.push(JinjaValue::from_object(dict));
        } else if let Some(first) = keywords.keys().next() {
            return Err(if keywords.contains_key("caller") {
                refused(
                    &self.name,
                    "was invoked with two values for the special caller argument. \
                     This is most likely a bug."
                        .to_owned(),
                )
            } else {
                refused(
                    &self.name,
                    format!(
                        "takes no keyword argument {}",
                        pyfmt::repr(&Value::from(first.as_str()))
                    ),
                )
            });
        }
        if self.catch_varargs {
            let rest = positional.get(count..).unwrap_or_default().to_vec();
            bound.push(JinjaValue::from(Tuple::from(rest)));
        } else if positional.len() > count {
            return Err(refused(
                &self.name,
                format!("takes not more than {count} argument(s)"),
            ));
        }
        // minijinja's macro takes `caller` as a keyword when its body reads it.
        let reads_caller = self
            .inner
            .get_attr("caller")
            .is_ok_and(|reads| reads.is_true());
        if let Some(caller) = caller.filter(|_| reads_caller) {
            bound.push(JinjaValue::from(Kwargs::from_iter([("caller", caller)])));
        }
        Ok(bound)
    }
}

impl Object for Macro {
    fn repr(self: &Arc<Self>) -> ObjectRepr {
        ObjectRepr::Map
    }

    fn get_value(self: &Arc<Self>, key: &JinjaValue) -> Option<JinjaValue> {
        Some(match key.as_str()? {
            "name" => JinjaValue::from(self.name.as_str()),
            "arguments" => JinjaValue::from(Tuple::from(
                self.arguments
                    .iter()
                    .map(|a| JinjaValue::from(a.as_str()))
                    .collect::<Vec<_>>(),
            )),
            "catch_kwargs" => JinjaValue::from(self.catch_kwargs),
            "catch_varargs" => JinjaValue::from(self.catch_varargs),
            "caller" => JinjaValue::from(self.caller),
            _ => return None,
        })
    }

    fn enumerate(self: &Arc<Self>) -> Enumerator {
        Enumerator::Str(&[
            "name",
            "arguments",
            "catch_kwargs",
            "catch_varargs",
            "caller",
        ])
    }

    fn is_true(self: &Arc<Self>) -> bool {
        true
    }

    fn call(
        self: &Arc<Self>,
        state: &mut State<'_, '_>,
        args: &[JinjaValue],
    ) -> Result<JinjaValue, Error> {
        let bound = self.bind(args)?;
        self.inner.call(state, &bound)
    }
}

/// Whether `value` is a macro the template defined (not a call block's
/// `caller`, which stays minijinja's).
pub(super) fn is_macro(value: &JinjaValue) -> bool {
    value.downcast_object_ref::<Macro>().is_some()
}

/// [`MACRO_FUNCTION`]: the macro `inner` as Jinja2 calls it.
pub(super) fn wrap(
    inner: JinjaValue,
    name: String,
    arguments: Vec<String>,
    defaults: usize,
    catch_kwargs: bool,
    catch_varargs: bool,
    caller: bool,
) -> JinjaValue {
    JinjaValue::from_object(Macro {
        inner,
        name,
        defaults: defaults.min(arguments.len()),
        arguments,
        catch_kwargs,
        catch_varargs,
        caller,
    })
}

/// [`GIVEN_FUNCTION`]: the undefined value for [`GivenUndefined`].
pub(super) fn given(value: JinjaValue) -> JinjaValue {
    if value.downcast_object_ref::<GivenUndefined>().is_some() {
        JinjaValue::UNDEFINED
    } else {
        value
    }
}

/// Registers [`MACRO_FUNCTION`] and [`GIVEN_FUNCTION`].
pub(super) fn add_to(env: &mut minijinja::Environment<'static>) {
    env.add_function(
        MACRO_FUNCTION,
        |inner: JinjaValue,
         name: String,
         arguments: Vec<String>,
         defaults: usize,
         flags: Rest<bool>| {
            let flag = |i: usize| flags.get(i).copied().unwrap_or(false);
            wrap(inner, name, arguments, defaults, flag(0), flag(1), flag(2))
        },
    );
    env.add_function(GIVEN_FUNCTION, given);
}
