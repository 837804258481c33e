//! Validation of a parsed document against an introspected schema: the rules
//! of the GraphQL specification (October 2021, section 5) whose outcome
//! depends on the schema — fields, arguments, values, fragments' types,
//! directives, variables' types and usages, leaf selections and field merging
//! — and the few that do not (names unique, variables defined and used,
//! fragments defined, used and acyclic). What a server's schema may change is
//! all covered; `tests/compatibility.rs` holds the verdicts to apollo-compiler's
//! on the real schema and on broken variants of it.
//!
//! Not checked: `__schema` and `__type` below the query root (the introspection
//! schema is the specification's, not the network's), the values of custom
//! scalars (a server coerces them at run time), and `@oneOf` input objects.

use std::collections::{BTreeMap, HashMap, HashSet};

use cynic_introspection::{
    Directive as DirectiveDef, DirectiveLocation, Field as FieldDef, FieldType, InputValue, Schema,
    Type, WrappingType,
};

use super::document::{
    Argument, Directive, Document, Field, Fragment, OperationKind, Selection, TypeRef, Value,
};

/// The schema, its types and directives by name.
pub(super) struct SchemaIndex<'s> {
    schema: &'s Schema,
    types: HashMap<&'s str, &'s Type>,
    directives: HashMap<&'s str, &'s DirectiveDef>,
}

impl<'s> SchemaIndex<'s> {
    pub(super) fn new(schema: &'s Schema) -> Self {
        Self {
            schema,
            types: schema.types.iter().map(|t| (t.name(), t)).collect(),
            directives: schema
                .directives
                .iter()
                .map(|d| (d.name.as_str(), d))
                .collect(),
        }
    }

    fn ty(&self, name: &str) -> Option<&'s Type> {
        self.types.get(name).copied()
    }

    fn fields(&self, name: &str) -> Option<&'s [FieldDef]> {
        match self.ty(name)? {
            Type::Object(o) => Some(&o.fields),
            Type::Interface(i) => Some(&i.fields),
            _ => None,
        }
    }

    fn field(&self, parent: &str, name: &str) -> Option<&'s FieldDef> {
        self.fields(parent)?.iter().find(|f| f.name == name)
    }

    fn is_composite(&self, name: &str) -> bool {
        matches!(
            self.ty(name),
            Some(Type::Object(_) | Type::Interface(_) | Type::Union(_))
        )
    }

    fn is_leaf(&self, name: &str) -> bool {
        matches!(self.ty(name), Some(Type::Scalar(_) | Type::Enum(_)))
    }

    fn is_object(&self, name: &str) -> bool {
        matches!(self.ty(name), Some(Type::Object(_)))
    }

    fn is_input(&self, name: &str) -> bool {
        matches!(
            self.ty(name),
            Some(Type::Scalar(_) | Type::Enum(_) | Type::InputObject(_))
        )
    }

    /// The object types a value of type `name` can be.
    fn possible_types(&self, name: &str) -> HashSet<&'s str> {
        match self.ty(name) {
            Some(Type::Object(o)) => HashSet::from([o.name.as_str()]),
            Some(Type::Interface(i)) => i.possible_types.iter().map(String::as_str).collect(),
            Some(Type::Union(u)) => u.possible_types.iter().map(String::as_str).collect(),
            _ => HashSet::new(),
        }
    }

    fn root(&self, kind: OperationKind) -> Option<&'s str> {
        match kind {
            OperationKind::Query => Some(self.schema.query_type.as_str()),
            OperationKind::Mutation => self.schema.mutation_type.as_deref(),
            OperationKind::Subscription => self.schema.subscription_type.as_deref(),
        }
    }
}

/// A schema type as the document's type grammar writes it.
fn type_ref(ty: &FieldType) -> TypeRef {
    let wrapping: Vec<WrappingType> = ty.wrapping.into_iter().collect();
    wrapping
        .iter()
        .rev()
        .fold(TypeRef::Named(ty.name.clone()), |inner, w| match w {
            WrappingType::List => TypeRef::List(Box::new(inner)),
            WrappingType::NonNull => TypeRef::NonNull(Box::new(inner)),
        })
}

/// The type of `__typename`.
fn typename_type() -> TypeRef {
    TypeRef::NonNull(Box::new(TypeRef::Named("String".into())))
}

/// A variable used at a place expecting `expected`; `defaulted` when that
/// place (an argument or input field) has a default of its own.
#[derive(Debug, Clone)]
struct Usage {
    variable: String,
    expected: TypeRef,
    defaulted: bool,
}

/// What a fragment's selections use: its variables and the fragments it spreads.
#[derive(Debug, Default)]
struct Uses {
    variables: Vec<Usage>,
    spreads: Vec<String>,
}

/// Every error of `document` against the schema, in document order. Empty
/// when the document is valid.
pub(super) fn validate(schema: &SchemaIndex<'_>, document: &Document) -> Vec<String> {
    let mut v = Validator {
        schema,
        fragments: HashMap::new(),
        errors: Vec::new(),
    };
    v.document(document);
    v.errors
}

struct Validator<'a, 's> {
    schema: &'a SchemaIndex<'s>,
    fragments: HashMap<&'a str, &'a Fragment>,
    errors: Vec<String>,
}

impl<'a> Validator<'a, '_> {
    fn error(&mut self, message: String) {
        self.errors.push(message);
    }

    fn document(&mut self, document: &'a Document) {
        for fragment in &document.fragments {
            if self
                .fragments
                .insert(fragment.name.as_str(), fragment)
                .is_some()
            {
                self.error(format!(
                    "the fragment `{}` is defined more than once",
                    fragment.name
                ));
            }
        }
        let mut names = HashSet::new();
        for operation in &document.operations {
            match &operation.name {
                Some(name) if !names.insert(name.as_str()) => {
                    self.error(format!("the operation `{name}` is defined more than once"))
                }
                None if document.operations.len() > 1 => self.error(
                    "an anonymous operation must be the only operation of its document".into(),
                ),
                _ => {}
            }
        }

        // Fragments once each, in the context of their type condition.
        let mut uses: HashMap<&str, Uses> = HashMap::new();
        for fragment in &document.fragments {
            let mut used = Uses::default();
            self.directives(
                &fragment.directives,
                DirectiveLocation::FragmentDefinition,
                &mut used,
            );
            if !self.schema.is_composite(&fragment.type_condition) {
                self.error(self.not_composite(&fragment.type_condition, &fragment.name));
            } else {
                self.selections(&fragment.type_condition, &fragment.selections, &mut used);
                self.merging(&fragment.type_condition, &fragment.selections);
            }
            uses.insert(fragment.name.as_str(), used);
        }
        self.fragment_cycles(&uses);

        let mut spread_anywhere: HashSet<&str> = HashSet::new();
        for operation in &document.operations {
            let mut used = Uses::default();
            let location = match operation.kind {
                OperationKind::Query => DirectiveLocation::Query,
                OperationKind::Mutation => DirectiveLocation::Mutation,
                OperationKind::Subscription => DirectiveLocation::Subscription,
            };
            self.directives(&operation.directives, location, &mut used);
            let mut defined: BTreeMap<&str, &TypeRef> = BTreeMap::new();
            for variable in &operation.variables {
                if defined
                    .insert(variable.name.as_str(), &variable.ty)
                    .is_some()
                {
                    self.error(format!(
                        "the variable `${}` is defined more than once",
                        variable.name
                    ));
                }
                let named = variable.ty.named();
                if self.schema.ty(named).is_none() {
                    self.error(format!(
                        "the variable `${}` has the type `{}`, which the schema does not define",
                        variable.name, variable.ty
                    ));
                } else if !self.schema.is_input(named) {
                    self.error(format!(
                        "the variable `${}` has the type `{}`, which is not an input type",
                        variable.name, variable.ty
                    ));
                } else if let Some(default) = &variable.default {
                    let mut ignored = Vec::new();
                    self.value(
                        default,
                        &variable.ty,
                        false,
                        &format!("the default of `${}`", variable.name),
                        &mut ignored,
                    );
                }
                self.directives(
                    &variable.directives,
                    DirectiveLocation::VariableDefinition,
                    &mut used,
                );
            }
            let Some(root) = self.schema.root(operation.kind) else {
                self.error(format!(
                    "the schema has no {} root type for the operation {}",
                    operation.kind,
                    operation.name.as_deref().unwrap_or("(anonymous)")
                ));
                continue;
            };
            self.selections(root, &operation.selections, &mut used);
            self.merging(root, &operation.selections);

            // The variables of the operation and of every fragment it reaches.
            let mut usages = used.variables;
            let mut reached: HashSet<&str> = HashSet::new();
            let mut stack: Vec<String> = used.spreads;
            while let Some(name) = stack.pop() {
                let Some((key, fragment_uses)) = uses.get_key_value(name.as_str()) else {
                    continue;
                };
                if reached.insert(key) {
                    usages.extend(fragment_uses.variables.iter().cloned());
                    stack.extend(fragment_uses.spreads.iter().cloned());
                }
            }
            spread_anywhere.extend(reached);
            let mut used_names: HashSet<&str> = HashSet::new();
            for usage in &usages {
                used_names.insert(usage.variable.as_str());
                let Some(variable) = operation
                    .variables
                    .iter()
                    .find(|v| v.name == usage.variable)
                else {
                    self.error(format!(
                        "the variable `${}` is used but not defined by the operation",
                        usage.variable
                    ));
                    continue;
                };
                if !self.schema.is_input(variable.ty.named()) {
                    continue;
                }
                if !usage_allowed(
                    &variable.ty,
                    variable.default.as_ref(),
                    &usage.expected,
                    usage.defaulted,
                ) {
                    self.error(format!(
                        "the variable `${}` of type `{}` is used where `{}` is expected",
                        usage.variable, variable.ty, usage.expected
                    ));
                }
            }
            for variable in &operation.variables {
                if !used_names.contains(variable.name.as_str()) {
                    self.error(format!(
                        "the variable `${}` is defined but never used",
                        variable.name
                    ));
                }
            }
        }
        for fragment in &document.fragments {
            if !spread_anywhere.contains(fragment.name.as_str()) {
                self.error(format!(
                    "the fragment `{}` is defined but never used",
                    fragment.name
                ));
            }
        }
    }

    fn not_composite(&self, type_condition: &str, fragment: &str) -> String {
        match self.schema.ty(type_condition) {
            None => format!(
                "the fragment `{fragment}` is on the type `{type_condition}`, which the schema does not define"
            ),
            Some(_) => format!(
                "the fragment `{fragment}` is on `{type_condition}`, which is not an object, interface or union type"
            ),
        }
    }

    fn fragment_cycles(&mut self, uses: &HashMap<&str, Uses>) {
        let mut names: Vec<&&str> = uses.keys().collect();
        names.sort();
        for start in names {
            let mut stack: Vec<&str> = uses[*start].spreads.iter().map(String::as_str).collect();
            let mut seen = HashSet::new();
            while let Some(name) = stack.pop() {
                if name == *start {
                    self.error(format!("the fragment `{start}` spreads itself"));
                    break;
                }
                if seen.insert(name)
                    && let Some(next) = uses.get(name)
                {
                    stack.extend(next.spreads.iter().map(String::as_str));
                }
            }
        }
    }

    /// Checks `selections` on the type `parent`, recording what they use.
    fn selections(&mut self, parent: &str, selections: &'a [Selection], used: &mut Uses) {
        for selection in selections {
            match selection {
                Selection::Field(field) => self.field(parent, field, used),
                Selection::InlineFragment(inline) => {
                    self.directives(&inline.directives, DirectiveLocation::InlineFragment, used);
                    let on = match &inline.type_condition {
                        None => parent,
                        Some(condition) => {
                            if self.schema.ty(condition).is_none() {
                                self.error(format!(
                                    "an inline fragment is on the type `{condition}`, which the schema does not define"
                                ));
                                continue;
                            }
                            if !self.schema.is_composite(condition) {
                                self.error(format!(
                                    "an inline fragment is on `{condition}`, which is not an object, interface or union type"
                                ));
                                continue;
                            }
                            if !self.overlaps(parent, condition) {
                                self.error(format!(
                                    "an inline fragment on `{condition}` can never apply within `{parent}`"
                                ));
                            }
                            condition.as_str()
                        }
                    };
                    self.selections(on, &inline.selections, used);
                }
                Selection::FragmentSpread(spread) => {
                    self.directives(&spread.directives, DirectiveLocation::FragmentSpread, used);
                    used.spreads.push(spread.name.clone());
                    let Some(fragment) = self.fragments.get(spread.name.as_str()).copied() else {
                        self.error(format!(
                            "the fragment `{}` is spread but not defined",
                            spread.name
                        ));
                        continue;
                    };
                    if self.schema.is_composite(&fragment.type_condition)
                        && !self.overlaps(parent, &fragment.type_condition)
                    {
                        self.error(format!(
                            "the fragment `{}` on `{}` can never apply within `{parent}`",
                            spread.name, fragment.type_condition
                        ));
                    }
                }
            }
        }
    }

    fn overlaps(&self, a: &str, b: &str) -> bool {
        let (a, b) = (self.schema.possible_types(a), self.schema.possible_types(b));
        a.intersection(&b).next().is_some()
    }

    fn field(&mut self, parent: &str, field: &'a Field, used: &mut Uses) {
        self.directives(&field.directives, DirectiveLocation::Field, used);
        if field.name == "__typename" {
            if !field.arguments.is_empty() {
                self.error("`__typename` takes no arguments".into());
            }
            if !field.selections.is_empty() {
                self.error(format!(
                    "`__typename` on `{parent}` is a leaf: it takes no selection"
                ));
            }
            return;
        }
        if matches!(field.name.as_str(), "__schema" | "__type")
            && Some(parent) == self.schema.root(OperationKind::Query)
        {
            // The introspection schema is the specification's, not the network's.
            return;
        }
        let Some(definition) = self.schema.field(parent, &field.name) else {
            let kind = match self.schema.ty(parent) {
                Some(Type::Union(_)) => "union",
                Some(Type::Interface(_)) => "interface",
                _ => "type",
            };
            self.error(format!(
                "{kind} `{parent}` does not have a field `{}`",
                field.name
            ));
            return;
        };
        self.arguments(
            &field.arguments,
            &definition.args,
            &format!("`{parent}.{}`", field.name),
            used,
        );
        let returned = &definition.ty.name;
        if self.schema.is_leaf(returned) {
            if !field.selections.is_empty() {
                self.error(format!(
                    "`{parent}.{}` is a leaf of type `{}`: it takes no selection",
                    field.name,
                    type_ref(&definition.ty)
                ));
            }
        } else if self.schema.is_composite(returned) {
            if field.selections.is_empty() {
                self.error(format!(
                    "`{parent}.{}` is of type `{}`: it needs a selection of its fields",
                    field.name,
                    type_ref(&definition.ty)
                ));
            } else {
                self.selections(returned, &field.selections, used);
            }
        } else {
            self.error(format!(
                "`{parent}.{}` is of type `{returned}`, which the schema does not define as an output type",
                field.name
            ));
        }
    }

    /// Checks `given` against the arguments `defined` of `what`.
    fn arguments(
        &mut self,
        given: &[Argument],
        defined: &[InputValue],
        what: &str,
        used: &mut Uses,
    ) {
        let mut seen = HashSet::new();
        for argument in given {
            if !seen.insert(argument.name.as_str()) {
                self.error(format!(
                    "the argument `{}` of {what} is given more than once",
                    argument.name
                ));
                continue;
            }
            let Some(definition) = defined.iter().find(|d| d.name == argument.name) else {
                self.error(format!(
                    "{what} does not have an argument `{}`",
                    argument.name
                ));
                continue;
            };
            self.value(
                &argument.value,
                &type_ref(&definition.ty),
                definition.default_value.is_some(),
                &format!("the argument `{}` of {what}", argument.name),
                &mut used.variables,
            );
        }
        for definition in defined {
            let required = matches!(type_ref(&definition.ty), TypeRef::NonNull(_))
                && definition.default_value.is_none();
            if required && !given.iter().any(|a| a.name == definition.name) {
                self.error(format!(
                    "{what} requires the argument `{}` of type `{}`",
                    definition.name,
                    type_ref(&definition.ty)
                ));
            }
        }
    }

    fn directives(&mut self, given: &[Directive], location: DirectiveLocation, used: &mut Uses) {
        let mut seen = HashSet::new();
        for directive in given {
            let Some(definition) = self.schema.directives.get(directive.name.as_str()).copied()
            else {
                self.error(format!(
                    "the directive `@{}` is not defined by the schema",
                    directive.name
                ));
                continue;
            };
            if !definition
                .locations
                .iter()
                .any(|l| std::mem::discriminant(l) == std::mem::discriminant(&location))
            {
                self.error(format!(
                    "the directive `@{}` is not allowed on {location:?}",
                    directive.name
                ));
            }
            if !seen.insert(directive.name.as_str()) && !definition.is_repeatable {
                self.error(format!(
                    "the directive `@{}` is used more than once in one place",
                    directive.name
                ));
            }
            self.arguments(
                &directive.arguments,
                &definition.args,
                &format!("`@{}`", directive.name),
                used,
            );
        }
    }

    /// Checks a value written for a place of type `expected` (`defaulted`:
    /// that place has a default). Variables found are recorded, their types
    /// checked once the operation's definitions are known.
    fn value(
        &mut self,
        value: &Value,
        expected: &TypeRef,
        defaulted: bool,
        what: &str,
        usages: &mut Vec<Usage>,
    ) {
        if let Value::Variable(name) = value {
            usages.push(Usage {
                variable: name.clone(),
                expected: expected.clone(),
                defaulted,
            });
            return;
        }
        match expected {
            TypeRef::NonNull(inner) => {
                if *value == Value::Null {
                    self.error(format!("{what} cannot be null: `{expected}` is expected"));
                } else {
                    self.value(value, inner, false, what, usages);
                }
            }
            _ if *value == Value::Null => {}
            TypeRef::List(item) => match value {
                Value::List(items) => {
                    for item_value in items {
                        self.value(item_value, item, false, what, usages);
                    }
                }
                // One value where a list is expected is a list of that value.
                single => self.value(single, item, false, what, usages),
            },
            TypeRef::Named(name) => self.named_value(value, name, what, usages),
        }
    }

    fn named_value(&mut self, value: &Value, name: &str, what: &str, usages: &mut Vec<Usage>) {
        let wrong = |v: &Value| format!("{what} is `{v}`, which is not a valid `{name}`");
        match self.schema.ty(name) {
            None => self.error(format!(
                "{what} has the type `{name}`, which the schema does not define"
            )),
            Some(Type::Scalar(_)) => {
                let fits = match name {
                    "Int" => matches!(value, Value::Int(text) if text.parse::<i32>().is_ok()),
                    "Float" => matches!(value, Value::Int(_) | Value::Float(_)),
                    "String" => matches!(value, Value::String(_)),
                    "Boolean" => matches!(value, Value::Boolean(_)),
                    "ID" => matches!(value, Value::String(_) | Value::Int(_)),
                    // A custom scalar's literal is the server's to coerce.
                    _ => true,
                };
                if !fits {
                    self.error(wrong(value));
                }
            }
            Some(Type::Enum(e)) => match value {
                Value::Enum(v) if e.values.iter().any(|ev| ev.name == *v) => {}
                Value::Enum(v) => self.error(format!(
                    "{what} is `{v}`, which is not a value of the enum `{name}`"
                )),
                other => self.error(wrong(other)),
            },
            Some(Type::InputObject(input)) => {
                let Value::Object(fields) = value else {
                    self.error(wrong(value));
                    return;
                };
                let mut seen = HashSet::new();
                for (field_name, field_value) in fields {
                    if !seen.insert(field_name.as_str()) {
                        self.error(format!(
                            "{what} gives the field `{field_name}` of `{name}` more than once"
                        ));
                        continue;
                    }
                    let Some(definition) = input.fields.iter().find(|f| f.name == *field_name)
                    else {
                        self.error(format!(
                            "{what}: the input type `{name}` does not have a field `{field_name}`"
                        ));
                        continue;
                    };
                    self.value(
                        field_value,
                        &type_ref(&definition.ty),
                        definition.default_value.is_some(),
                        &format!("the field `{name}.{field_name}`"),
                        usages,
                    );
                }
                for definition in &input.fields {
                    let required = matches!(type_ref(&definition.ty), TypeRef::NonNull(_))
                        && definition.default_value.is_none();
                    if required && !fields.iter().any(|(n, _)| *n == definition.name) {
                        self.error(format!(
                            "{what} lacks the field `{}` that `{name}` requires",
                            definition.name
                        ));
                    }
                }
            }
            Some(_) => self.error(format!(
                "{what} has the type `{name}`, which is not an input type"
            )),
        }
    }

    /// The rule "field selections can merge": fields of one response name
    /// must have the same shape, and, where they could be the same field of
    /// the same object, be that field with the same arguments.
    fn merging(&mut self, parent: &str, selections: &'a [Selection]) {
        let mut groups = Groups::default();
        self.collect(parent, selections, &mut groups, &mut HashSet::new());
        self.can_merge(&groups);
        // Every nested selection set is a set of its own.
        self.merging_below(parent, selections);
    }

    fn merging_below(&mut self, parent: &str, selections: &'a [Selection]) {
        for selection in selections {
            match selection {
                Selection::Field(field) if !field.selections.is_empty() => {
                    if let Some(definition) = self.schema.field(parent, &field.name) {
                        let returned = definition.ty.name.as_str();
                        let mut groups = Groups::default();
                        self.collect(
                            returned,
                            &field.selections,
                            &mut groups,
                            &mut HashSet::new(),
                        );
                        self.can_merge(&groups);
                        self.merging_below(returned, &field.selections);
                    }
                }
                Selection::Field(_) => {}
                Selection::InlineFragment(inline) => {
                    let on = inline.type_condition.as_deref().unwrap_or(parent);
                    if self.schema.is_composite(on) {
                        self.merging_below(on, &inline.selections);
                    }
                }
                // A fragment's own sets are checked with its definition.
                Selection::FragmentSpread(_) => {}
            }
        }
    }

    /// The fields `selections` select on `parent`, by response name, through
    /// inline fragments and fragment spreads.
    fn collect(
        &self,
        parent: &str,
        selections: &'a [Selection],
        groups: &mut Groups<'a>,
        fragments: &mut HashSet<&'a str>,
    ) {
        for selection in selections {
            match selection {
                Selection::Field(field) => {
                    let ty = if field.name == "__typename" {
                        Some(typename_type())
                    } else {
                        self.schema
                            .field(parent, &field.name)
                            .map(|d| type_ref(&d.ty))
                    };
                    groups.add(Collected {
                        parent: parent.to_owned(),
                        field,
                        ty,
                    });
                }
                Selection::InlineFragment(inline) => {
                    let on = inline.type_condition.as_deref().unwrap_or(parent);
                    if self.schema.is_composite(on) {
                        self.collect(on, &inline.selections, groups, fragments);
                    }
                }
                Selection::FragmentSpread(spread) => {
                    if let Some(fragment) = self.fragments.get(spread.name.as_str()).copied()
                        && fragments.insert(fragment.name.as_str())
                        && self.schema.is_composite(&fragment.type_condition)
                    {
                        self.collect(
                            &fragment.type_condition,
                            &fragment.selections,
                            groups,
                            fragments,
                        );
                    }
                }
            }
        }
    }

    fn can_merge(&mut self, groups: &Groups<'a>) {
        for (name, fields) in &groups.0 {
            for (i, a) in fields.iter().enumerate() {
                for b in &fields[i + 1..] {
                    if let Err(why) = self.mergeable(a, b) {
                        self.error(format!(
                            "the fields selected as `{name}` cannot be merged: {why}"
                        ));
                        return;
                    }
                }
            }
        }
    }

    fn mergeable(&self, a: &Collected<'a>, b: &Collected<'a>) -> Result<(), String> {
        self.same_shape(a, b)?;
        let could_be_one = a.parent == b.parent
            || !self.schema.is_object(&a.parent)
            || !self.schema.is_object(&b.parent);
        if could_be_one {
            if a.field.name != b.field.name {
                return Err(format!(
                    "`{}.{}` and `{}.{}` are different fields",
                    a.parent, a.field.name, b.parent, b.field.name
                ));
            }
            if !same_arguments(&a.field.arguments, &b.field.arguments) {
                return Err(format!(
                    "`{}.{}` is selected with different arguments",
                    a.parent, a.field.name
                ));
            }
            let mut groups = Groups::default();
            for c in [a, b] {
                if let Some(ty) = &c.ty {
                    self.collect(
                        ty.named(),
                        &c.field.selections,
                        &mut groups,
                        &mut HashSet::new(),
                    );
                }
            }
            for (_, fields) in &groups.0 {
                for (i, x) in fields.iter().enumerate() {
                    for y in &fields[i + 1..] {
                        self.mergeable(x, y)?;
                    }
                }
            }
        }
        Ok(())
    }

    /// The spec's SameResponseShape.
    fn same_shape(&self, a: &Collected<'a>, b: &Collected<'a>) -> Result<(), String> {
        let (Some(ta), Some(tb)) = (&a.ty, &b.ty) else {
            // An unknown field is reported where it is selected.
            return Ok(());
        };
        let differ = || {
            Err(format!(
                "`{}.{}` is `{ta}` and `{}.{}` is `{tb}`",
                a.parent, a.field.name, b.parent, b.field.name
            ))
        };
        let (mut x, mut y) = (ta, tb);
        loop {
            match (x, y) {
                (TypeRef::NonNull(i), TypeRef::NonNull(j))
                | (TypeRef::List(i), TypeRef::List(j)) => {
                    x = i;
                    y = j;
                }
                (TypeRef::NonNull(_), _)
                | (_, TypeRef::NonNull(_))
                | (TypeRef::List(_), _)
                | (_, TypeRef::List(_)) => return differ(),
                (TypeRef::Named(n), TypeRef::Named(m)) => {
                    if self.schema.is_leaf(n) || self.schema.is_leaf(m) {
                        return if n == m { Ok(()) } else { differ() };
                    }
                    let mut groups = Groups::default();
                    self.collect(n, &a.field.selections, &mut groups, &mut HashSet::new());
                    self.collect(m, &b.field.selections, &mut groups, &mut HashSet::new());
                    for (_, fields) in &groups.0 {
                        for (i, p) in fields.iter().enumerate() {
                            for q in &fields[i + 1..] {
                                self.same_shape(p, q)?;
                            }
                        }
                    }
                    return Ok(());
                }
            }
        }
    }
}

/// A field as selected on a type, with its type there (`None`: the type has
/// no such field).
struct Collected<'a> {
    parent: String,
    field: &'a Field,
    ty: Option<TypeRef>,
}

/// Collected fields by response name, in the order first selected.
#[derive(Default)]
struct Groups<'a>(Vec<(&'a str, Vec<Collected<'a>>)>);

impl<'a> Groups<'a> {
    fn add(&mut self, collected: Collected<'a>) {
        let name = collected.field.response_name();
        match self.0.iter_mut().find(|(n, _)| *n == name) {
            Some((_, fields)) => fields.push(collected),
            None => self.0.push((name, vec![collected])),
        }
    }
}

/// The same arguments, whatever their order.
fn same_arguments(a: &[Argument], b: &[Argument]) -> bool {
    a.len() == b.len()
        && a.iter()
            .all(|x| b.iter().any(|y| y.name == x.name && y.value == x.value))
}

/// The spec's IsVariableUsageAllowed.
fn usage_allowed(
    variable: &TypeRef,
    default: Option<&Value>,
    expected: &TypeRef,
    place_defaulted: bool,
) -> bool {
    if let TypeRef::NonNull(nullable_expected) = expected
        && !matches!(variable, TypeRef::NonNull(_))
    {
        let variable_defaulted = default.is_some_and(|d| *d != Value::Null);
        if !variable_defaulted && !place_defaulted {
            return false;
        }
        return compatible(variable, nullable_expected);
    }
    compatible(variable, expected)
}

/// The spec's AreTypesCompatible.
fn compatible(variable: &TypeRef, expected: &TypeRef) -> bool {
    match (variable, expected) {
        (TypeRef::NonNull(v), TypeRef::NonNull(e)) => compatible(v, e),
        (_, TypeRef::NonNull(_)) => false,
        (TypeRef::NonNull(v), e) => compatible(v, e),
        (TypeRef::List(v), TypeRef::List(e)) => compatible(v, e),
        (TypeRef::List(_), _) | (_, TypeRef::List(_)) => false,
        (TypeRef::Named(v), TypeRef::Named(e)) => v == e,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(text: &str) -> TypeRef {
        // `[A!]!` and friends, for the tests of the type rules.
        fn parse(s: &str) -> (TypeRef, &str) {
            let (ty, rest) = if let Some(inner) = s.strip_prefix('[') {
                let (ty, rest) = parse(inner);
                (TypeRef::List(Box::new(ty)), &rest[1..])
            } else {
                let end = s.find([']', '!']).unwrap_or(s.len());
                (TypeRef::Named(s[..end].to_owned()), &s[end..])
            };
            match rest.strip_prefix('!') {
                Some(rest) => (TypeRef::NonNull(Box::new(ty)), rest),
                None => (ty, rest),
            }
        }
        parse(text).0
    }

    #[test]
    fn a_variable_fits_where_its_type_is_as_strict_or_stricter() {
        assert!(compatible(&t("ID!"), &t("ID")));
        assert!(compatible(&t("[ID!]!"), &t("[ID]")));
        assert!(!compatible(&t("ID"), &t("ID!")));
        assert!(!compatible(&t("[ID]"), &t("[ID!]")));
        assert!(!compatible(&t("ID"), &t("[ID]")));
        assert!(!compatible(&t("[ID]"), &t("ID")));
        assert!(!compatible(&t("ID"), &t("String")));
    }

    #[test]
    fn a_nullable_variable_fits_a_required_place_only_with_a_default() {
        let one = Value::Int("1".into());

        assert!(!usage_allowed(&t("Int"), None, &t("Int!"), false));
        assert!(usage_allowed(&t("Int"), Some(&one), &t("Int!"), false));
        assert!(!usage_allowed(
            &t("Int"),
            Some(&Value::Null),
            &t("Int!"),
            false
        ));
        assert!(usage_allowed(&t("Int"), None, &t("Int!"), true));
        assert!(!usage_allowed(&t("String"), Some(&one), &t("Int!"), false));
    }
}
