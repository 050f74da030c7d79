import { TextLink } from '~/components/ui/text-link.tsx'
import { LegalDocument, LegalSection } from './legal-document.tsx'

/** /terms: static Terms of Service (docs/product.md#privacy-and-terms: 18 or older, cookies, marketing e-mail). */
export function TermsPage() {
  return (
    <LegalDocument title="Terms of Service" updated="1 November 2026">
      <LegalSection title="1. The service">
        <p>
          Tunefeed is a self-hosted web application run by the operator of this server. It converts audio you are
          entitled to use, follows video channels and plays their videos. By creating an account or using the service
          you agree to these terms.
        </p>
      </LegalSection>
      <LegalSection title="2. Who may use it">
        <p>
          You must be 18 years of age or older to create an account or use the service. By signing up you confirm that
          you are at least 18.
        </p>
      </LegalSection>
      <LegalSection title="3. Your account">
        <p>
          Keep your password secret; you are responsible for everything done with your account. You may link one
          external WebDAV account, whose credentials are stored encrypted and used only to deliver your files.
        </p>
      </LegalSection>
      <LegalSection title="4. Acceptable use">
        <p>
          Only process media you own or have the right to copy. Do not use the service to break the law, to infringe
          anyone's rights, or to overload or attack this server or the sites it fetches from.
        </p>
      </LegalSection>
      <LegalSection title="5. Cookies">
        <p>
          The service uses cookies: a session cookie keeps you signed in and is required for the service to work. See
          the <TextLink to="/privacy">Privacy Policy</TextLink>.
        </p>
      </LegalSection>
      <LegalSection title="6. E-mail">
        <p>
          We send e-mail needed to run your account (verification and password reset codes). We may also send you
          marketing e-mail about the service; you can ask the operator to stop it at any time.
        </p>
      </LegalSection>
      <LegalSection title="7. No warranty">
        <p>
          The service is provided as is, without warranty of any kind. Files and jobs may be removed after a retention
          period, and the service may change or stop at any time.
        </p>
      </LegalSection>
      <LegalSection title="8. Ending your use">
        <p>
          You may stop using the service at any time. The operator may suspend accounts that break these terms.
        </p>
      </LegalSection>
    </LegalDocument>
  )
}
