Feature: Vali Admin's sample forms
  Two forms side by side on an admin template: fields named by labels and
  placeholders, radios, a checkbox and buttons.

  Background:
    Given I open 'vali-admin@4.1.0/package/docs/form-samples.html' in the browser

  @sample
  Scenario: Filling in the vertical form
    When I type 'Ada Lovelace' into the 'Enter full name' field
    And I type 'ada@example.com' into the 'Enter email address' field
    Then I should see 'Ada Lovelace'
    And I should see 'ada@example.com'
    And I should see 1 'Enter email address'

  Scenario: The second form's fields
    When I type 'Grace' into the second 'Enter full name' field
    Then I should see 'Grace'
    And I should see 1 'Enter full name'

  Scenario: A radio and the terms
    When I click the 'Female' radio
    And I click the 'I accept the terms and conditions' checkbox
    Then I should see 'Female'

  Scenario: An address over several lines
    When I click the 'Enter your address' field
    And I type '12 Market Street'
    And I press 'Enter'
    And I type 'Springfield'
    Then I should see 'Springfield'

  Scenario: The sidebar and the breadcrumb
    Then I should see 'Form Samples'
    And I should see the 'Sample Forms' link
    When I click the 'Tables' link
    Then I should see 'Tables'

  Scenario: The sidebar leads to the form components
    When I click the 'Form Components' link
    Then I should see the 'Form Components' heading
