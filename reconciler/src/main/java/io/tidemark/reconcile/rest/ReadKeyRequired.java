package io.tidemark.reconcile.rest;

import jakarta.ws.rs.NameBinding;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a read endpoint that needs a valid {@value ApiKeyFilter#HEADER} header when {@code
 * tidemark.api.protect-reads} is on.
 */
@NameBinding
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
public @interface ReadKeyRequired {}
