//! Jinja2's string filters over a value that is not a string.
//!
//! Jinja2's `upper`, `lower`, `title`, `capitalize`, `trim`, `striptags`
//! and `wordcount` print such a value first
//! (`soft_str`, Python's `str()`: `[1, 'A']` for `[1, 'a']|upper`).
//! minijinja's print it their own way, whole, before anything pays for it:
//! a list doubled 40 times around a 1 MB string was gigabytes. Here the
//! value is printed as Python prints it, within what the rendering has
//! left ([`show::python_str`]), and handed to the same filter. (`replace`
//! and `indent` stay minijinja's: their registered forms, which read
//! keyword arguments and pay fuel, are private to it.)

use super::show;
use minijinja::value::{Kwargs, Rest, Value as JinjaValue, ValueKind};
use minijinja::{Environment, Error, State};

/// Registers the filters of this module over minijinja's (and its
/// companion crate's) own.
pub(super) fn add_to(env: &mut Environment<'static>) {
    use minijinja::filters;
    wrap(env, "upper", JinjaValue::from_function(filters::upper));
    wrap(env, "lower", JinjaValue::from_function(filters::lower));
    wrap(env, "title", JinjaValue::from_function(filters::title));
    wrap(
        env,
        "capitalize",
        JinjaValue::from_function(filters::capitalize),
    );
    wrap(env, "trim", JinjaValue::from_function(filters::trim));
    wrap(
        env,
        "striptags",
        JinjaValue::from_function(minijinja_contrib::filters::striptags),
    );
    wrap(
        env,
        "wordcount",
        JinjaValue::from_function(minijinja_contrib::filters::wordcount),
    );
}

/// `name` as `filter` over its value printed as Python's `str()`.
fn wrap(env: &mut Environment<'static>, name: &'static str, filter: JinjaValue) {
    env.add_filter(
        name,
        move |state: &mut State,
              args: Rest<JinjaValue>,
              kwargs: Kwargs|
              -> Result<JinjaValue, Error> {
            let mut args = args.0;
            // The one keyword these filters take (`trim(chars=…)`) is
            // their second argument.
            let names: Vec<String> = kwargs.args().map(str::to_owned).collect();
            for name in names {
                args.push(kwargs.get::<JinjaValue>(&name)?);
            }
            if let Some(value) = args.first_mut() {
                if value.kind() != ValueKind::String && !value.is_undefined() {
                    *value = JinjaValue::from(show::python_str(Some(&*state), value)?);
                }
            }
            filter.call(state, &args)
        },
    );
}
