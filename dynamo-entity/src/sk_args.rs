// Impls of `SkArgs` for sort keys of up to six parts: for each arity, every leading subset of
// the parts (as a tuple of references) and, for one-part keys, a bare reference.

impl<T0: KeyPart> SkArgs<(T0,)> for () {
    const PARTS: usize = 0;
    fn write(&self, _: &mut KeyWriter) -> Result<(), KeyError> { Ok(()) }
}

impl<T0: KeyPart> PartialSk<(T0,)> for () {}

impl<'a, T0: KeyPart> SkArgs<(T0,)> for (&'a T0::Arg,) {
    const PARTS: usize = 1;
    fn write(&self, w: &mut KeyWriter) -> Result<(), KeyError> { w.part(self.0)?; Ok(()) }
}

impl<'a, T0: KeyPart> FullSk<(T0,)> for (&'a T0::Arg,) {}

impl<'a, T0: KeyPart> SkArgs<(T0,)> for &'a T0::Arg {
    const PARTS: usize = 1;
    fn write(&self, w: &mut KeyWriter) -> Result<(), KeyError> { w.part(*self) }
}
impl<'a, T0: KeyPart> FullSk<(T0,)> for &'a T0::Arg {}

impl<T0: KeyPart, T1: KeyPart> SkArgs<(T0, T1,)> for () {
    const PARTS: usize = 0;
    fn write(&self, _: &mut KeyWriter) -> Result<(), KeyError> { Ok(()) }
}

impl<T0: KeyPart, T1: KeyPart> PartialSk<(T0, T1,)> for () {}

impl<'a, T0: KeyPart, T1: KeyPart> SkArgs<(T0, T1,)> for (&'a T0::Arg,) {
    const PARTS: usize = 1;
    fn write(&self, w: &mut KeyWriter) -> Result<(), KeyError> { w.part(self.0)?; Ok(()) }
}

impl<'a, T0: KeyPart, T1: KeyPart> PartialSk<(T0, T1,)> for (&'a T0::Arg,) {}

impl<'a, T0: KeyPart, T1: KeyPart> SkArgs<(T0, T1,)> for (&'a T0::Arg, &'a T1::Arg,) {
    const PARTS: usize = 2;
    fn write(&self, w: &mut KeyWriter) -> Result<(), KeyError> { w.part(self.0)?; w.part(self.1)?; Ok(()) }
}

impl<'a, T0: KeyPart, T1: KeyPart> FullSk<(T0, T1,)> for (&'a T0::Arg, &'a T1::Arg,) {}

impl<T0: KeyPart, T1: KeyPart, T2: KeyPart> SkArgs<(T0, T1, T2,)> for () {
    const PARTS: usize = 0;
    fn write(&self, _: &mut KeyWriter) -> Result<(), KeyError> { Ok(()) }
}

impl<T0: KeyPart, T1: KeyPart, T2: KeyPart> PartialSk<(T0, T1, T2,)> for () {}

impl<'a, T0: KeyPart, T1: KeyPart, T2: KeyPart> SkArgs<(T0, T1, T2,)> for (&'a T0::Arg,) {
    const PARTS: usize = 1;
    fn write(&self, w: &mut KeyWriter) -> Result<(), KeyError> { w.part(self.0)?; Ok(()) }
}

impl<'a, T0: KeyPart, T1: KeyPart, T2: KeyPart> PartialSk<(T0, T1, T2,)> for (&'a T0::Arg,) {}

impl<'a, T0: KeyPart, T1: KeyPart, T2: KeyPart> SkArgs<(T0, T1, T2,)> for (&'a T0::Arg, &'a T1::Arg,) {
    const PARTS: usize = 2;
    fn write(&self, w: &mut KeyWriter) -> Result<(), KeyError> { w.part(self.0)?; w.part(self.1)?; Ok(()) }
}

impl<'a, T0: KeyPart, T1: KeyPart, T2: KeyPart> PartialSk<(T0, T1, T2,)> for (&'a T0::Arg, &'a T1::Arg,) {}

impl<'a, T0: KeyPart, T1: KeyPart, T2: KeyPart> SkArgs<(T0, T1, T2,)> for (&'a T0::Arg, &'a T1::Arg, &'a T2::Arg,) {
    const PARTS: usize = 3;
    fn write(&self, w: &mut KeyWriter) -> Result<(), KeyError> { w.part(self.0)?; w.part(self.1)?; w.part(self.2)?; Ok(()) }
}

impl<'a, T0: KeyPart, T1: KeyPart, T2: KeyPart> FullSk<(T0, T1, T2,)> for (&'a T0::Arg, &'a T1::Arg, &'a T2::Arg,) {}

impl<T0: KeyPart, T1: KeyPart, T2: KeyPart, T3: KeyPart> SkArgs<(T0, T1, T2, T3,)> for () {
    const PARTS: usize = 0;
    fn write(&self, _: &mut KeyWriter) -> Result<(), KeyError> { Ok(()) }
}

impl<T0: KeyPart, T1: KeyPart, T2: KeyPart, T3: KeyPart> PartialSk<(T0, T1, T2, T3,)> for () {}

impl<'a, T0: KeyPart, T1: KeyPart, T2: KeyPart, T3: KeyPart> SkArgs<(T0, T1, T2, T3,)> for (&'a T0::Arg,) {
    const PARTS: usize = 1;
    fn write(&self, w: &mut KeyWriter) -> Result<(), KeyError> { w.part(self.0)?; Ok(()) }
}

impl<'a, T0: KeyPart, T1: KeyPart, T2: KeyPart, T3: KeyPart> PartialSk<(T0, T1, T2, T3,)> for (&'a T0::Arg,) {}

impl<'a, T0: KeyPart, T1: KeyPart, T2: KeyPart, T3: KeyPart> SkArgs<(T0, T1, T2, T3,)> for (&'a T0::Arg, &'a T1::Arg,) {
    const PARTS: usize = 2;
    fn write(&self, w: &mut KeyWriter) -> Result<(), KeyError> { w.part(self.0)?; w.part(self.1)?; Ok(()) }
}

impl<'a, T0: KeyPart, T1: KeyPart, T2: KeyPart, T3: KeyPart> PartialSk<(T0, T1, T2, T3,)> for (&'a T0::Arg, &'a T1::Arg,) {}

impl<'a, T0: KeyPart, T1: KeyPart, T2: KeyPart, T3: KeyPart> SkArgs<(T0, T1, T2, T3,)> for (&'a T0::Arg, &'a T1::Arg, &'a T2::Arg,) {
    const PARTS: usize = 3;
    fn write(&self, w: &mut KeyWriter) -> Result<(), KeyError> { w.part(self.0)?; w.part(self.1)?; w.part(self.2)?; Ok(()) }
}

impl<'a, T0: KeyPart, T1: KeyPart, T2: KeyPart, T3: KeyPart> PartialSk<(T0, T1, T2, T3,)> for (&'a T0::Arg, &'a T1::Arg, &'a T2::Arg,) {}

impl<'a, T0: KeyPart, T1: KeyPart, T2: KeyPart, T3: KeyPart> SkArgs<(T0, T1, T2, T3,)> for (&'a T0::Arg, &'a T1::Arg, &'a T2::Arg, &'a T3::Arg,) {
    const PARTS: usize = 4;
    fn write(&self, w: &mut KeyWriter) -> Result<(), KeyError> { w.part(self.0)?; w.part(self.1)?; w.part(self.2)?; w.part(self.3)?; Ok(()) }
}

impl<'a, T0: KeyPart, T1: KeyPart, T2: KeyPart, T3: KeyPart> FullSk<(T0, T1, T2, T3,)> for (&'a T0::Arg, &'a T1::Arg, &'a T2::Arg, &'a T3::Arg,) {}

impl<T0: KeyPart, T1: KeyPart, T2: KeyPart, T3: KeyPart, T4: KeyPart> SkArgs<(T0, T1, T2, T3, T4,)> for () {
    const PARTS: usize = 0;
    fn write(&self, _: &mut KeyWriter) -> Result<(), KeyError> { Ok(()) }
}

impl<T0: KeyPart, T1: KeyPart, T2: KeyPart, T3: KeyPart, T4: KeyPart> PartialSk<(T0, T1, T2, T3, T4,)> for () {}

impl<'a, T0: KeyPart, T1: KeyPart, T2: KeyPart, T3: KeyPart, T4: KeyPart> SkArgs<(T0, T1, T2, T3, T4,)> for (&'a T0::Arg,) {
    const PARTS: usize = 1;
    fn write(&self, w: &mut KeyWriter) -> Result<(), KeyError> { w.part(self.0)?; Ok(()) }
}

impl<'a, T0: KeyPart, T1: KeyPart, T2: KeyPart, T3: KeyPart, T4: KeyPart> PartialSk<(T0, T1, T2, T3, T4,)> for (&'a T0::Arg,) {}

impl<'a, T0: KeyPart, T1: KeyPart, T2: KeyPart, T3: KeyPart, T4: KeyPart> SkArgs<(T0, T1, T2, T3, T4,)> for (&'a T0::Arg, &'a T1::Arg,) {
    const PARTS: usize = 2;
    fn write(&self, w: &mut KeyWriter) -> Result<(), KeyError> { w.part(self.0)?; w.part(self.1)?; Ok(()) }
}

impl<'a, T0: KeyPart, T1: KeyPart, T2: KeyPart, T3: KeyPart, T4: KeyPart> PartialSk<(T0, T1, T2, T3, T4,)> for (&'a T0::Arg, &'a T1::Arg,) {}

impl<'a, T0: KeyPart, T1: KeyPart, T2: KeyPart, T3: KeyPart, T4: KeyPart> SkArgs<(T0, T1, T2, T3, T4,)> for (&'a T0::Arg, &'a T1::Arg, &'a T2::Arg,) {
    const PARTS: usize = 3;
    fn write(&self, w: &mut KeyWriter) -> Result<(), KeyError> { w.part(self.0)?; w.part(self.1)?; w.part(self.2)?; Ok(()) }
}

impl<'a, T0: KeyPart, T1: KeyPart, T2: KeyPart, T3: KeyPart, T4: KeyPart> PartialSk<(T0, T1, T2, T3, T4,)> for (&'a T0::Arg, &'a T1::Arg, &'a T2::Arg,) {}

impl<'a, T0: KeyPart, T1: KeyPart, T2: KeyPart, T3: KeyPart, T4: KeyPart> SkArgs<(T0, T1, T2, T3, T4,)> for (&'a T0::Arg, &'a T1::Arg, &'a T2::Arg, &'a T3::Arg,) {
    const PARTS: usize = 4;
    fn write(&self, w: &mut KeyWriter) -> Result<(), KeyError> { w.part(self.0)?; w.part(self.1)?; w.part(self.2)?; w.part(self.3)?; Ok(()) }
}

impl<'a, T0: KeyPart, T1: KeyPart, T2: KeyPart, T3: KeyPart, T4: KeyPart> PartialSk<(T0, T1, T2, T3, T4,)> for (&'a T0::Arg, &'a T1::Arg, &'a T2::Arg, &'a T3::Arg,) {}

impl<'a, T0: KeyPart, T1: KeyPart, T2: KeyPart, T3: KeyPart, T4: KeyPart> SkArgs<(T0, T1, T2, T3, T4,)> for (&'a T0::Arg, &'a T1::Arg, &'a T2::Arg, &'a T3::Arg, &'a T4::Arg,) {
    const PARTS: usize = 5;
    fn write(&self, w: &mut KeyWriter) -> Result<(), KeyError> { w.part(self.0)?; w.part(self.1)?; w.part(self.2)?; w.part(self.3)?; w.part(self.4)?; Ok(()) }
}

impl<'a, T0: KeyPart, T1: KeyPart, T2: KeyPart, T3: KeyPart, T4: KeyPart> FullSk<(T0, T1, T2, T3, T4,)> for (&'a T0::Arg, &'a T1::Arg, &'a T2::Arg, &'a T3::Arg, &'a T4::Arg,) {}

impl<T0: KeyPart, T1: KeyPart, T2: KeyPart, T3: KeyPart, T4: KeyPart, T5: KeyPart> SkArgs<(T0, T1, T2, T3, T4, T5,)> for () {
    const PARTS: usize = 0;
    fn write(&self, _: &mut KeyWriter) -> Result<(), KeyError> { Ok(()) }
}

impl<T0: KeyPart, T1: KeyPart, T2: KeyPart, T3: KeyPart, T4: KeyPart, T5: KeyPart> PartialSk<(T0, T1, T2, T3, T4, T5,)> for () {}

impl<'a, T0: KeyPart, T1: KeyPart, T2: KeyPart, T3: KeyPart, T4: KeyPart, T5: KeyPart> SkArgs<(T0, T1, T2, T3, T4, T5,)> for (&'a T0::Arg,) {
    const PARTS: usize = 1;
    fn write(&self, w: &mut KeyWriter) -> Result<(), KeyError> { w.part(self.0)?; Ok(()) }
}

impl<'a, T0: KeyPart, T1: KeyPart, T2: KeyPart, T3: KeyPart, T4: KeyPart, T5: KeyPart> PartialSk<(T0, T1, T2, T3, T4, T5,)> for (&'a T0::Arg,) {}

impl<'a, T0: KeyPart, T1: KeyPart, T2: KeyPart, T3: KeyPart, T4: KeyPart, T5: KeyPart> SkArgs<(T0, T1, T2, T3, T4, T5,)> for (&'a T0::Arg, &'a T1::Arg,) {
    const PARTS: usize = 2;
    fn write(&self, w: &mut KeyWriter) -> Result<(), KeyError> { w.part(self.0)?; w.part(self.1)?; Ok(()) }
}

impl<'a, T0: KeyPart, T1: KeyPart, T2: KeyPart, T3: KeyPart, T4: KeyPart, T5: KeyPart> PartialSk<(T0, T1, T2, T3, T4, T5,)> for (&'a T0::Arg, &'a T1::Arg,) {}

impl<'a, T0: KeyPart, T1: KeyPart, T2: KeyPart, T3: KeyPart, T4: KeyPart, T5: KeyPart> SkArgs<(T0, T1, T2, T3, T4, T5,)> for (&'a T0::Arg, &'a T1::Arg, &'a T2::Arg,) {
    const PARTS: usize = 3;
    fn write(&self, w: &mut KeyWriter) -> Result<(), KeyError> { w.part(self.0)?; w.part(self.1)?; w.part(self.2)?; Ok(()) }
}

impl<'a, T0: KeyPart, T1: KeyPart, T2: KeyPart, T3: KeyPart, T4: KeyPart, T5: KeyPart> PartialSk<(T0, T1, T2, T3, T4, T5,)> for (&'a T0::Arg, &'a T1::Arg, &'a T2::Arg,) {}

impl<'a, T0: KeyPart, T1: KeyPart, T2: KeyPart, T3: KeyPart, T4: KeyPart, T5: KeyPart> SkArgs<(T0, T1, T2, T3, T4, T5,)> for (&'a T0::Arg, &'a T1::Arg, &'a T2::Arg, &'a T3::Arg,) {
    const PARTS: usize = 4;
    fn write(&self, w: &mut KeyWriter) -> Result<(), KeyError> { w.part(self.0)?; w.part(self.1)?; w.part(self.2)?; w.part(self.3)?; Ok(()) }
}

impl<'a, T0: KeyPart, T1: KeyPart, T2: KeyPart, T3: KeyPart, T4: KeyPart, T5: KeyPart> PartialSk<(T0, T1, T2, T3, T4, T5,)> for (&'a T0::Arg, &'a T1::Arg, &'a T2::Arg, &'a T3::Arg,) {}

impl<'a, T0: KeyPart, T1: KeyPart, T2: KeyPart, T3: KeyPart, T4: KeyPart, T5: KeyPart> SkArgs<(T0, T1, T2, T3, T4, T5,)> for (&'a T0::Arg, &'a T1::Arg, &'a T2::Arg, &'a T3::Arg, &'a T4::Arg,) {
    const PARTS: usize = 5;
    fn write(&self, w: &mut KeyWriter) -> Result<(), KeyError> { w.part(self.0)?; w.part(self.1)?; w.part(self.2)?; w.part(self.3)?; w.part(self.4)?; Ok(()) }
}

impl<'a, T0: KeyPart, T1: KeyPart, T2: KeyPart, T3: KeyPart, T4: KeyPart, T5: KeyPart> PartialSk<(T0, T1, T2, T3, T4, T5,)> for (&'a T0::Arg, &'a T1::Arg, &'a T2::Arg, &'a T3::Arg, &'a T4::Arg,) {}

impl<'a, T0: KeyPart, T1: KeyPart, T2: KeyPart, T3: KeyPart, T4: KeyPart, T5: KeyPart> SkArgs<(T0, T1, T2, T3, T4, T5,)> for (&'a T0::Arg, &'a T1::Arg, &'a T2::Arg, &'a T3::Arg, &'a T4::Arg, &'a T5::Arg,) {
    const PARTS: usize = 6;
    fn write(&self, w: &mut KeyWriter) -> Result<(), KeyError> { w.part(self.0)?; w.part(self.1)?; w.part(self.2)?; w.part(self.3)?; w.part(self.4)?; w.part(self.5)?; Ok(()) }
}

impl<'a, T0: KeyPart, T1: KeyPart, T2: KeyPart, T3: KeyPart, T4: KeyPart, T5: KeyPart> FullSk<(T0, T1, T2, T3, T4, T5,)> for (&'a T0::Arg, &'a T1::Arg, &'a T2::Arg, &'a T3::Arg, &'a T4::Arg, &'a T5::Arg,) {}

impl SkArgs<()> for () {
    const PARTS: usize = 0;
    fn write(&self, _: &mut KeyWriter) -> Result<(), KeyError> { Ok(()) }
}
impl FullSk<()> for () {}
